import { join } from 'node:path';
import type { Clock, Logger } from '@kdp/base';
import { createKubeClient } from '@kdp/core';
import type { KubeApiAccess } from '@kdp/core';
import type { ResourceHost } from '@kdp/core/plugin';
import { createKubeClaimReader } from './claim-reader';
import { createDraPlugin, type DraPlugin, type DraPluginEvent } from './dra-plugin';
import { createDriverPools } from './driver-pools';
import type { DraServeModeEvent } from './dra-serve-mode-event';
import type { DraMetrics } from './dra-metrics';
import { reportNetworkStatus } from './claim-network-status';
import { createKubeClaimStatusWriter, type ClaimStatusWriter } from './claim-status-writer';
import { createDeviceMetadataWriter } from './device-metadata';
import { createResourceApiDiscovery } from './resource-api-discovery';
import type { SlicePoolEntry } from './pool-slices';
import { preparePluginClaim } from './prepare-plugin-claim';
import { decodePluginConfig, driverConfigKinds } from './apply-claim-config';
import { unpreparePluginClaim } from './unprepare-plugin-claim';
import { createSlicePublisher, type SlicePublisher, type SlicePublisherEvent } from './slice-publisher';

/** One plugin served as one DRA driver. */
export interface PluginDriver {
  readonly name: string;
  /** Where the plugin's resources go. */
  readonly host: ResourceHost;
  /** Publishes the slices and registers the kubelet plugin. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether the kubelet accepted the registration. */
  registered(): boolean;
}

/** Options of {@link createPluginDriver}. */
export interface PluginDriverOptions {
  /** The driver name (`gpu.kdp.dev`). */
  readonly name: string;
  readonly nodeName: string;
  readonly access: KubeApiAccess;
  readonly pluginsRegistryDir: string;
  readonly draPluginsDir: string;
  readonly cdiDir: string;
  /** Where procfs is read for the node's boot ID. */
  readonly procRoot: string;
  /** The pod's UID (`$POD_UID`), for the kubelet plugin's checkpoint. */
  readonly podUid: string | undefined;
  /** How long device changes are collected before the slices are written. */
  readonly sliceDebounceMs: number | undefined;
  readonly healthCheckTimeoutSeconds: number | undefined;
  readonly onEvent: ((event: DraServeModeEvent) => void) | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborts when the process shuts down. */
  readonly signal: AbortSignal;
  /** Told of every change of a pool's published devices (the publication latency starts there). */
  readonly metrics?: Pick<DraMetrics, 'poolChanged'> | undefined;
  /** Writes each prepared claim's device metadata files and mounts them into its containers (KEP 5304 style). */
  readonly deviceMetadata?: boolean | undefined;
}

/**
 * Each plugin of the process as the DRA driver `name`: a pool `<node>/<resource>` of ResourceSlices per resource
 * (healthy devices only), claims prepared by the resource's own `allocate`, and the devices' health streamed.
 */
export function createPluginDriver(options: PluginDriverOptions): PluginDriver {
  const { name, nodeName, access, logger } = options;
  let publisher: SlicePublisher | undefined;
  let plugin: DraPlugin | undefined;
  let started = false;
  /** Per pool, its devices as last handed to the publisher. */
  const handed = new Map<string, string>();
  /** The pools to publish now; a pool whose devices changed since the last hand-over is told to the metrics. */
  const model = (): Map<string, SlicePoolEntry> => {
    const current = pools.slices();
    if (options.metrics === undefined) return current; // no serialization of every device just to compare
    for (const [pool, entry] of current) {
      const content = JSON.stringify(entry);
      if (handed.get(pool) === content) continue;
      handed.set(pool, content);
      options.metrics?.poolChanged(name, pool, ('devices' in entry ? entry.devices : entry).length);
    }
    for (const pool of [...handed.keys()]) if (!current.has(pool)) handed.delete(pool);
    return current;
  };
  const pools = createDriverPools({ name, nodeName, clock: options.clock, logger }, () => {
    if (started) publisher?.update(model());
  });
  const emit = options.onEvent ?? (() => undefined);
  const metadata =
    options.deviceMetadata === true
      ? createDeviceMetadataWriter(join(options.draPluginsDir, name, 'metadata'), name)
      : undefined;
  return {
    name,
    host: pools.host,
    async start() {
      // One resource.k8s.io version for slices and claims, logged when the publisher first lists.
      const discovery = createResourceApiDiscovery({
        client: createKubeClient({ access }),
        purpose: `DRA driver ${name}`,
        logger,
      });
      const status: ClaimStatusWriter = createKubeClaimStatusWriter({
        access,
        discovery,
        driverName: name,
        now: () => options.clock.now(),
      });
      publisher = createSlicePublisher({
        access,
        discovery,
        driverName: name,
        nodeName,
        pools: model(),
        clock: options.clock,
        ...(options.sliceDebounceMs !== undefined ? { debounceMs: options.sliceDebounceMs } : {}),
        onEvent: (event) => {
          emit({ driver: name, source: 'slices', ...event });
          logSliceEvent(logger, name, event);
        },
      });
      plugin = createDraPlugin({
        driverName: name,
        nodeName,
        driver: {
          // The configuration kinds of the resources served now (`ResourceDraHooks.config`).
          decodeConfig: (parameters) =>
            decodePluginConfig(
              driverConfigKinds([...pools.byPool.values()].map((r) => r.declaration)),
              name,
              parameters,
            ),
          async prepare(input) {
            const output = await preparePluginClaim(
              input,
              pools.byPool,
              name,
              options.signal,
              logger,
              metadata,
            );
            await reportNetworkStatus(status, input, pools.byPool, logger);
            return output;
          },
          async unprepare(input) {
            await unpreparePluginClaim(input, pools.byPool);
            await metadata?.remove(input.claim.uid);
          },
        },
        claims: createKubeClaimReader({ access, discovery }),
        pluginsRegistryDir: options.pluginsRegistryDir,
        draPluginsDir: options.draPluginsDir,
        podUid: options.podUid,
        cdi: { dir: options.cdiDir },
        procRoot: options.procRoot,
        isLocalPool: (pool) => pools.byPool.has(pool) || pool.startsWith(`${nodeName}/`),
        health: pools.health,
        healthCheckTimeoutSeconds: options.healthCheckTimeoutSeconds,
        clock: options.clock,
        logger,
        onEvent: (event) => {
          emit({ driver: name, source: 'plugin', ...event });
          logPluginEvent(logger, name, event);
        },
      });
      started = true;
      publisher.start();
      await plugin.start();
    },
    async stop() {
      started = false;
      await plugin?.stop();
      await publisher?.stop();
      pools.close();
    },
    registered: () => plugin?.registrationStatus()?.registered === true,
  };
}

function logPluginEvent(logger: Logger, driver: string, event: DraPluginEvent): void {
  if (event.type === 'registration')
    logger[event.registered ? 'info' : 'error'](
      { driver, ...(event.error !== '' ? { problem: event.error } : {}) },
      event.registered ? 'registered with the kubelet (DRA)' : 'DRA registration refused',
    );
  else if (event.type === 'prepared' || event.type === 'unprepared')
    logger[event.errors.length > 0 ? 'warn' : 'info'](
      { driver, claims: event.claims, ...(event.errors.length > 0 ? { errors: event.errors } : {}) },
      `claims ${event.type}`,
    );
  else logger.warn({ driver, event }, 'DRA plugin event');
}

function logSliceEvent(logger: Logger, driver: string, event: SlicePublisherEvent): void {
  if (event.type === 'published' || event.type === 'removed')
    logger.info({ driver, ...event }, 'ResourceSlices written');
  else if (event.type === 'rejected')
    logger.error({ driver, ...event }, 'ResourceSlices refused by the API server');
  else logger.warn({ driver, ...event }, 'ResourceSlices not written yet; retrying');
}
