import { credentials, status, type ClientReadableStream } from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1, UnixSocketPathMaxBytes } from '@kdp/api';
import { silentLogger, systemClock, type Clock, type LifecycleLogger } from '@kdp/base';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { grpcCode } from './pod-resources-client';

/** The kubelet's default directory of DRA plugin sockets (`<dir>/<driver>/dra.sock`). */
export const defaultDraPluginsDir = '/var/lib/kubelet/plugins';

/** A DRA device's health as the kubelet would see it: `Unknown` also when not refreshed within its timeout. */
export type DraHealthState = 'Healthy' | 'Unhealthy' | 'Unknown';

/** Options of {@link createDraHealthWatcher}. */
export interface DraHealthWatcherOptions {
  /** The DRA plugins directory: a driver's sockets are `<dir>/<driver>/dra.sock` or `dra-<suffix>.sock`. */
  readonly pluginsDir: string;
  /** After a stream ends, its socket is not opened again for this long; default 5000 ms, as the kubelet. */
  readonly retryMs?: number | undefined;
  readonly clock?: Clock | undefined;
  readonly logger?: LifecycleLogger | undefined;
  /** Called when a driver reports new health or its stream ends. */
  readonly onChange?: (() => void) | undefined;
}

/** Follows the DRA drivers' health services (`NodeWatchResources`) found in the plugins directory. */
export interface DraHealthWatcher {
  /** Scans the directory: opens a stream for each new socket, drops those whose socket is gone. */
  refresh(): void;
  /** The health a driver last reported for a device, or undefined when it reports none (no stream, not listed). */
  health(driver: string, pool: string, device: string): DraHealthState | undefined;
  /** The sockets with an open stream, as `<driver>/<socket file>`, sorted. */
  streams(): string[];
  /** Cancels every stream; a later {@link DraHealthWatcher.refresh} opens them again. */
  close(): void;
}

/** The kubelet's timeout for a device whose driver sets none. */
const DEFAULT_TIMEOUT_SECONDS = 30;
/** A driver directory is a DRA driver name (a DNS subdomain); its sockets are `dra.sock` or `dra-*.sock`. */
const driverNamePattern = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const socketNamePattern = /^dra(-[A-Za-z0-9._-]+)?\.sock$/;

type Service = 'v1alpha1' | 'v1';
type HealthMessage = draHealthV1alpha1.NodeWatchResourcesResponse;

interface DeviceReport {
  readonly health: draHealthV1alpha1.HealthStatus;
  /** Unix seconds. */
  readonly lastUpdatedTime: number;
  readonly timeoutSeconds: number;
}

interface SocketWatch {
  readonly driver: string;
  readonly path: string;
  service: Service;
  cancel?: (() => void) | undefined;
  /** By `<pool>\0<device>`, from the last message. */
  devices: Map<string, DeviceReport>;
  endedAt?: number | undefined;
}

/**
 * Watches the health of the DRA drivers on this node as the kubelet does: for every socket
 * `<pluginsDir>/<driver>/dra*.sock` (the directory name is the driver name), a `NodeWatchResources` stream
 * (`v1alpha1.DRAResourceHealth`, or `v1` when a driver serves only that); each message replaces the driver's
 * device list. A device is `Unknown` when its `last_updated_time` is older than its timeout (default 30 s). A
 * stream that ends clears that socket's health and is opened again after `retryMs`. Only directories named like
 * a driver and unix sockets (not symlinks) are used.
 */
export function createDraHealthWatcher(options: DraHealthWatcherOptions): DraHealthWatcher {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const retryMs = options.retryMs ?? 5_000;
  const changed = options.onChange ?? (() => undefined);
  const watches = new Map<string, SocketWatch>();
  let dirProblem: string | undefined;

  const open = (watch: SocketWatch): void => {
    const address = `unix://${watch.path}`;
    const client =
      watch.service === 'v1'
        ? new draHealthV1.DRAResourceHealthClient(address, credentials.createInsecure())
        : new draHealthV1alpha1.DRAResourceHealthClient(address, credentials.createInsecure());
    const stream: ClientReadableStream<HealthMessage> = client.nodeWatchResources({});
    let ended = false;
    const end = (error?: unknown, quiet = false): void => {
      if (ended) return;
      ended = true;
      stream.cancel();
      client.close();
      watch.cancel = undefined;
      watch.endedAt = clock.now();
      const hadHealth = watch.devices.size > 0;
      watch.devices = new Map();
      if (error !== undefined && grpcCode(error) === status.UNIMPLEMENTED && watch.service === 'v1alpha1') {
        // A driver serving only v1.DRAResourceHealth: ask that one, at once.
        watch.service = 'v1';
        watch.endedAt = undefined;
      } else if (!quiet) {
        logger.info(
          { driver: watch.driver, socket: watch.path, error: error === undefined ? 'EOF' : String(error) },
          'DRA health stream ended',
        );
      }
      if (hadHealth) changed();
    };
    stream.on('data', (message: HealthMessage) => {
      const devices = new Map<string, DeviceReport>();
      for (const entry of message.devices) {
        if (entry.device === undefined) continue;
        devices.set(`${entry.device.poolName}\u0000${entry.device.deviceName}`, {
          health: entry.health,
          lastUpdatedTime: entry.lastUpdatedTime,
          timeoutSeconds:
            entry.healthCheckTimeoutSeconds > 0 ? entry.healthCheckTimeoutSeconds : DEFAULT_TIMEOUT_SECONDS,
        });
      }
      watch.devices = devices;
      changed();
    });
    stream.on('error', (error: unknown) => end(error));
    stream.on('end', () => end());
    watch.cancel = () => end(undefined, true);
    logger.debug(
      { driver: watch.driver, socket: watch.path, service: watch.service },
      'DRA health stream opened',
    );
  };

  /** The driver sockets now in the directory, by path. */
  const scan = (): Map<string, string> => {
    const found = new Map<string, string>();
    let drivers: string[];
    try {
      drivers = readdirSync(options.pluginsDir);
      dirProblem = undefined;
    } catch (error) {
      const problem = (error as NodeJS.ErrnoException).code ?? String(error);
      // No directory is a node without DRA drivers (or without the mount): worth a line, not a warning.
      if (problem !== dirProblem)
        logger[problem === 'ENOENT' ? 'info' : 'warn'](
          { dir: options.pluginsDir, error: problem },
          'DRA plugins directory not readable: no DRA device health',
        );
      dirProblem = problem;
      return found;
    }
    for (const driver of drivers) {
      if (!driverNamePattern.test(driver)) continue;
      let names: string[];
      try {
        if (!lstatSync(join(options.pluginsDir, driver)).isDirectory()) continue;
        names = readdirSync(join(options.pluginsDir, driver));
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(options.pluginsDir, driver, name);
        if (!socketNamePattern.test(name) || Buffer.byteLength(path) > UnixSocketPathMaxBytes) continue;
        try {
          if (lstatSync(path).isSocket()) found.set(path, driver);
        } catch {
          // Gone between the listing and the check.
        }
      }
    }
    return found;
  };

  return {
    refresh() {
      const found = scan();
      for (const [path, watch] of watches) {
        if (found.has(path)) continue;
        watches.delete(path);
        watch.cancel?.();
      }
      for (const [path, driver] of found) {
        const watch: SocketWatch = watches.get(path) ?? {
          driver,
          path,
          service: 'v1alpha1',
          devices: new Map(),
        };
        watches.set(path, watch);
        if (watch.cancel !== undefined) continue;
        if (watch.endedAt !== undefined && clock.now() - watch.endedAt < retryMs) continue;
        open(watch);
      }
    },
    health(driver, pool, device) {
      let latest: DeviceReport | undefined;
      for (const watch of watches.values()) {
        if (watch.driver !== driver) continue;
        const report = watch.devices.get(`${pool}\u0000${device}`);
        if (report !== undefined && (latest === undefined || report.lastUpdatedTime > latest.lastUpdatedTime))
          latest = report;
      }
      if (latest === undefined) return undefined;
      if (clock.now() / 1000 > latest.lastUpdatedTime + latest.timeoutSeconds) return 'Unknown';
      if (latest.health === draHealthV1alpha1.HealthStatus.HEALTHY) return 'Healthy';
      if (latest.health === draHealthV1alpha1.HealthStatus.UNHEALTHY) return 'Unhealthy';
      return 'Unknown';
    },
    streams: () =>
      [...watches.values()]
        .filter((w) => w.cancel !== undefined)
        .map((w) => `${w.driver}/${w.path.slice(w.path.lastIndexOf('/') + 1)}`)
        .sort(),
    close() {
      for (const watch of watches.values()) watch.cancel?.();
      watches.clear();
    },
  };
}
