import { unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Server } from '@grpc/grpc-js';
import {
  draHealthV1,
  draHealthV1alpha1,
  draV1,
  draV1beta1,
  PluginsRegistryPath,
  pluginregistration,
} from '@kdp/api';
import { silentLogger, systemClock, type Clock, type LifecycleLogger } from '@kdp/base';
import { GRPC_CHANNEL_OPTIONS } from '@kdp/core';
import { createCheckpoint, type Checkpoint, type PreparedClaimRecord } from './checkpoint';
import { createClaimPreparer, type ClaimCdiOptions, type DraDriver } from './claim-preparer';
import type { ClaimReader } from './claim-reader';
import { createDraService } from './dra-service';
import { createHealthService, type HealthService, type HealthSource } from './health-service';
import { createRegistrationService, type RegistrationStatus } from './registration-service';
import { serveOnSocket, shutdownSocketServer } from './socket-server';
import { DRA_PLUGINS_DIR, draSocketPath, registrationSocketPath } from './socket-names';

/** The plugin type a DRA driver reports in GetInfo. */
export const DRA_PLUGIN_TYPE = 'DRAPlugin';

/** The DRA gRPC services this library serves, in the order GetInfo lists them (the kubelet takes the first it knows). */
export const DRA_PLUGIN_SERVICES = ['v1.DRAPlugin', 'v1beta1.DRAPlugin'] as const;

/** The health services, listed after the DRAPlugin services when a health source is given. */
export const DRA_HEALTH_SERVICES = ['v1.DRAResourceHealth', 'v1alpha1.DRAResourceHealth'] as const;

/** Something that happened to a DRA plugin, for logs, metrics and tests. */
export type DraPluginEvent =
  | { readonly type: 'registration'; readonly registered: boolean; readonly error: string }
  | { readonly type: 'checkpoint-corrupt'; readonly reason: string; readonly movedTo: string }
  | {
      readonly type: 'rebooted';
      readonly previousBootId: string;
      readonly bootId: string;
      /** How many prepared claims of the other boot were discarded (the kubelet prepares them again). */
      readonly discarded: number;
    }
  | { readonly type: 'checkpoint-lock-takeover'; readonly owner: string; readonly ageMs: number }
  | {
      readonly type: 'prepared' | 'unprepared';
      readonly claims: number;
      readonly errors: readonly string[];
      /** How long the call took. */
      readonly durationMs: number;
    };

/** Options for {@link createDraPlugin}. */
export interface DraPluginOptions {
  /** The driver name (a DNS subdomain of at most 63 characters), e.g. `gpu.kdp.dev`. */
  readonly driverName: string;
  /** This node's name (`--node-name`, default `$NODE_NAME`). */
  readonly nodeName: string;
  /** The device-specific work. */
  readonly driver: DraDriver;
  /** Where ResourceClaims are read (e.g. {@link createKubeClaimReader}). */
  readonly claims: ClaimReader;
  /** `--plugins-registry-dir` [/var/lib/kubelet/plugins_registry]. */
  readonly pluginsRegistryDir?: string | undefined;
  /** `--dra-plugins-dir` [/var/lib/kubelet/plugins]; the DRA socket is `<dir>/<driver>/dra.sock`. */
  readonly draPluginsDir?: string | undefined;
  /** This pod's UID for rolling updates (several instances at once): it goes into both socket names. */
  readonly podUid?: string | undefined;
  /** Per-claim CDI spec files. */
  readonly cdi: ClaimCdiOptions;
  /** Where the checkpoint lives; default `<draPluginsDir>/<driver>`. */
  readonly dataDir?: string | undefined;
  /** `--proc-root` [/proc], for the boot ID. */
  readonly procRoot?: string | undefined;
  /** The node's labels, to check `matchExpressions` of allocation node selectors. */
  readonly nodeLabels?: Readonly<Record<string, string>> | undefined;
  /** Whether a pool is this node's; default every pool. */
  readonly isLocalPool?: ((pool: string) => boolean) | undefined;
  /** Device health; when given the health services are served and listed in GetInfo. */
  readonly health?: HealthSource | undefined;
  /** `health_check_timeout_seconds` [30]. */
  readonly healthCheckTimeoutSeconds?: number | undefined;
  readonly clock?: Clock | undefined;
  readonly logger?: LifecycleLogger | undefined;
  readonly onEvent?: ((event: DraPluginEvent) => void) | undefined;
}

/** A DRA kubelet plugin: the registration socket and the DRA socket. */
export interface DraPlugin {
  /** Loads the checkpoint, serves the DRA socket, then the registration socket (so the kubelet can dial at once). */
  start(): Promise<void>;
  /** Removes the registration socket first (the kubelet deregisters), then the DRA socket; idempotent. */
  stop(): Promise<void>;
  readonly registrationSocket: string;
  readonly draSocket: string;
  /** The services GetInfo lists, in preference order. */
  readonly supportedVersions: readonly string[];
  /** The last NotifyRegistrationStatus, or undefined before any. */
  registrationStatus(): { readonly registered: boolean; readonly error: string } | undefined;
  /** The prepared claims (of every instance sharing the checkpoint), by UID, as last read. */
  prepared(): ReadonlyMap<string, PreparedClaimRecord>;
  /** The checkpoint (path, load, read, update). */
  readonly checkpoint: Checkpoint;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Creates a DRA kubelet plugin, the counterpart of Go's `kubeletplugin.Start`: plugin-watcher registration
 * (`DRAPlugin`, the driver name, the DRA socket, the services in preference order), NodePrepareResources and
 * NodeUnprepareResources for v1 and v1beta1 with the kubelet's rules and a checkpoint, and NodeWatchResources
 * when a health source is given. Throws at once on a bad driver name or a socket path that is too long.
 */
export function createDraPlugin(options: DraPluginOptions): DraPlugin {
  const { driverName } = options;
  if (driverName.length > 63 || !DNS_SUBDOMAIN.test(driverName))
    throw new Error(
      `driver name ${JSON.stringify(driverName)} is not a DNS subdomain of at most 63 characters`,
    );
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const emit = options.onEvent ?? (() => undefined);
  const draPluginsDir = options.draPluginsDir ?? DRA_PLUGINS_DIR;
  const registrationSocket = registrationSocketPath(
    options.pluginsRegistryDir ?? PluginsRegistryPath,
    driverName,
    options.podUid,
  );
  const draSocket = draSocketPath(draPluginsDir, driverName, options.podUid);
  const checkpoint = createCheckpoint({
    dir: options.dataDir ?? dirname(draSocket),
    procRoot: options.procRoot,
    now: () => clock.now(),
    owner: `${options.podUid !== undefined ? `pod ${options.podUid}, ` : ''}pid ${process.pid}`,
    onEvent(event) {
      if (event.type === 'checkpoint-corrupt') {
        logger.error(
          { driver: driverName, reason: event.reason, movedTo: event.movedTo },
          'checkpoint is corrupt: moved aside, starting with no prepared claims',
        );
        emit({ type: 'checkpoint-corrupt', reason: event.reason, movedTo: event.movedTo });
        return;
      }
      logger.info(
        {
          driver: driverName,
          previousBootId: event.previousBootId,
          bootId: event.bootId,
          discarded: event.discarded,
        },
        'the node rebooted since the checkpoint was written: its prepared claims are discarded, the kubelet prepares them again',
      );
      emit({
        type: 'rebooted',
        previousBootId: event.previousBootId,
        bootId: event.bootId,
        discarded: event.discarded.length,
      });
    },
    onLockTakeover(owner, ageMs) {
      logger.warn(
        { driver: driverName, owner, ageMs },
        'took over the checkpoint lock of an instance that died holding it',
      );
      emit({ type: 'checkpoint-lock-takeover', owner, ageMs });
    },
  });
  const preparer = createClaimPreparer({
    driverName,
    driver: options.driver,
    claims: options.claims,
    checkpoint,
    cdi: options.cdi,
    nodeName: options.nodeName,
    nodeLabels: options.nodeLabels,
    isLocalPool: options.isLocalPool,
  });
  const health: HealthService | undefined =
    options.health !== undefined
      ? createHealthService({
          source: options.health,
          timeoutSeconds: options.healthCheckTimeoutSeconds,
          clock,
        })
      : undefined;
  const supportedVersions: readonly string[] = [
    ...DRA_PLUGIN_SERVICES,
    ...(health !== undefined ? DRA_HEALTH_SERVICES : []),
  ];
  let registration: RegistrationStatus | undefined;

  const draServer = new Server({
    ...GRPC_CHANNEL_OPTIONS,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
  });
  const draService = createDraService({
    preparer,
    clock,
    report(type, claims, errors, durationMs) {
      for (const error of errors) logger.warn({ driver: driverName }, error);
      logger.debug({ driver: driverName, claims, errors: errors.length, durationMs }, `${type} claims`);
      emit({ type, claims, errors, durationMs });
    },
  });
  draServer.addService(draV1.DRAPluginService, draService);
  // v1beta1 has the same messages but for share_id, which its encoder does not know and leaves out.
  draServer.addService(draV1beta1.DRAPluginService, draService as unknown as draV1beta1.DRAPluginServer);
  if (health !== undefined) {
    draServer.addService(draHealthV1.DRAResourceHealthService, health.v1);
    draServer.addService(draHealthV1alpha1.DRAResourceHealthService, health.v1alpha1);
  }

  const registrationServer = new Server(GRPC_CHANNEL_OPTIONS);
  const registrationService = createRegistrationService({
    type: DRA_PLUGIN_TYPE,
    driverName,
    endpoint: draSocket,
    supportedVersions,
    onStatus(status) {
      registration = status;
      if (status.registered) logger.info({ driver: driverName }, 'registered with the kubelet');
      else logger.error({ driver: driverName, error: status.error }, 'the kubelet refused the registration');
      emit({ type: 'registration', ...status });
    },
  });
  registrationServer.addService(pluginregistration.RegistrationService, registrationService);

  let started = false;
  let stopping: Promise<void> | undefined;

  return {
    registrationSocket,
    draSocket,
    supportedVersions,
    checkpoint,
    registrationStatus: () => registration,
    prepared: () => preparer.prepared(),
    async start() {
      if (started) throw new Error('the DRA plugin was already started');
      started = true;
      // A corrupt checkpoint or another boot's records are reported through the checkpoint's onEvent.
      await preparer.load();
      await serveOnSocket(draServer, draSocket);
      await serveOnSocket(registrationServer, registrationSocket);
      logger.info(
        { driver: driverName, registrationSocket, draSocket, supportedVersions },
        'DRA plugin serving',
      );
    },
    stop() {
      stopping ??= (async () => {
        health?.close();
        await unlink(registrationSocket).catch(() => undefined);
        await shutdownSocketServer(registrationServer, registrationSocket);
        await shutdownSocketServer(draServer, draSocket);
      })();
      return stopping;
    },
  };
}
