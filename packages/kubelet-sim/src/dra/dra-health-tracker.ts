import type { draHealthV1alpha1 } from '@kdp/api';
import type { Clock } from '@kdp/base';
import type { DraEndpoint } from './dra-endpoint';
import type { DraDeviceHealth } from './dra-events';
import type { DraEmit } from './dra-manager-types';

interface HealthEntry {
  readonly poolName: string;
  readonly deviceName: string;
  readonly health: DraDeviceHealth['health'];
  readonly message: string;
  readonly lastUpdated: number;
  readonly timeoutMs: number;
  timer?: unknown;
}

const defaultHealthTimeoutMs = 30_000;
const healthNames: Record<number, DraDeviceHealth['health']> = { 1: 'Healthy', 2: 'Unhealthy' };

/** Options of {@link createDraHealthTracker}. */
export interface DraHealthTrackerOptions {
  readonly emit: DraEmit;
  /** Device timeouts and the stream retry follow it. */
  readonly clock: Clock;
  /** Pause before NodeWatchResources is opened again after it ended. */
  readonly healthRetryMs: number;
  /** Whether `endpoint` is still the registered one of a manager not restarted since `generation`. */
  readonly isCurrent: (endpoint: DraEndpoint, generation: number) => boolean;
  /** The manager's current generation. */
  readonly generation: () => number;
}

/** The device health the drivers report over NodeWatchResources, as the kubelet's health cache keeps it. */
export interface DraHealthTracker {
  /** Opens the endpoint's health stream, and opens it again whenever it ends. */
  start(endpoint: DraEndpoint): void;
  /** Closes the endpoint's health stream, if open. */
  stop(endpoint: DraEndpoint): void;
  /** A driver's devices, `Unknown` where not refreshed within their timeout. */
  health(driver: string): DraDeviceHealth[];
  /** Closes every stream and forgets every driver's health. */
  clearAll(): void;
}

/** Creates an empty health tracker. */
export function createDraHealthTracker(options: DraHealthTrackerOptions): DraHealthTracker {
  const { emit, clock } = options;
  const streams = new Map<DraEndpoint, () => void>();
  const health = new Map<string, Map<string, HealthEntry>>();

  const evaluate = (entry: HealthEntry): DraDeviceHealth => ({
    poolName: entry.poolName,
    deviceName: entry.deviceName,
    health: clock.now() - entry.lastUpdated > entry.timeoutMs ? 'Unknown' : entry.health,
    message: entry.message,
    lastUpdated: entry.lastUpdated,
    timeoutMs: entry.timeoutMs,
  });
  const healthOf = (driver: string): DraDeviceHealth[] =>
    [...(health.get(driver)?.values() ?? [])].map(evaluate);

  const clearHealth = (driver: string): void => {
    for (const entry of health.get(driver)?.values() ?? [])
      if (entry.timer !== undefined) clock.clearTimeout(entry.timer);
    health.delete(driver);
  };

  const update = (driver: string, devices: readonly draHealthV1alpha1.DeviceHealth[]): void => {
    const entries = health.get(driver) ?? new Map<string, HealthEntry>();
    health.set(driver, entries);
    for (const raw of devices) {
      const poolName = raw.device?.poolName ?? '';
      const deviceName = raw.device?.deviceName ?? '';
      const key = `${poolName}/${deviceName}`;
      const previous = entries.get(key);
      if (previous?.timer !== undefined) clock.clearTimeout(previous.timer);
      const entry: HealthEntry = {
        poolName,
        deviceName,
        health: healthNames[raw.health] ?? 'Unknown',
        message: raw.message.length > 1024 ? `${raw.message.slice(0, 1021)}...` : raw.message,
        lastUpdated: raw.lastUpdatedTime > 0 ? raw.lastUpdatedTime * 1000 : clock.now(),
        timeoutMs:
          raw.healthCheckTimeoutSeconds > 0 ? raw.healthCheckTimeoutSeconds * 1000 : defaultHealthTimeoutMs,
      };
      // A device not refreshed within its timeout becomes Unknown.
      entry.timer = clock.setTimeout(
        () => {
          if (health.get(driver)?.get(key) !== entry) return;
          entry.timer = undefined;
          emit('dra-health', { driver, reason: 'timeout', devices: healthOf(driver) });
        },
        Math.max(0, entry.lastUpdated + entry.timeoutMs - clock.now()) + 1,
      );
      entries.set(key, entry);
    }
    emit('dra-health', { driver, reason: 'update', devices: healthOf(driver) });
  };

  const start = (endpoint: DraEndpoint): void => {
    const started = options.generation();
    const attempt = (): void => {
      if (!options.isCurrent(endpoint, started)) return;
      const stop = endpoint.watchHealth({
        onMessage: (devices) => update(endpoint.driver, devices),
        onEnd: () => {
          streams.delete(endpoint);
          if (!options.isCurrent(endpoint, started)) return;
          // The stream ended: the driver's health is cleared, and the stream opened again later.
          clearHealth(endpoint.driver);
          emit('dra-health', { driver: endpoint.driver, reason: 'stream-ended', devices: [] });
          clock.setTimeout(attempt, options.healthRetryMs);
        },
      });
      streams.set(endpoint, stop);
    };
    attempt();
  };

  return {
    start,
    stop: (endpoint) => {
      streams.get(endpoint)?.();
      streams.delete(endpoint);
    },
    health: healthOf,
    clearAll: () => {
      for (const stop of streams.values()) stop();
      streams.clear();
      for (const driver of [...health.keys()]) clearHealth(driver);
    },
  };
}
