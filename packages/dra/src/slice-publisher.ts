import { createBackoff, silentLogger, systemClock, type Clock, type LifecycleLogger } from '@kdp/base';
import { createKubeClient, KubeApiError, type KubeApiAccess } from '@kdp/core';
import { toDesiredPools, type DesiredPool } from './desired-pools';
import { messageOf } from './message-of';
import { MAX_DEVICES_PER_SLICE, type SlicePools } from './pool-slices';
import { createPublishLoop } from './publish-loop';
import {
  createResourceApiDiscovery,
  type ResourceApiDiscovery,
  type ResourceApiVersion,
} from './resource-api-discovery';
import { createSliceCache } from './slice-cache';
import type { SliceObject } from './slice-object';
import type { SlicePublisherEvent } from './slice-publisher-event';
import { createSliceWriter } from './slice-writer';
import { syncPool, type PoolHistory, type PoolSyncContext } from './sync-pool';

export type { SlicePublisherEvent } from './slice-publisher-event';

/** kube-apiserver truncates `generateName` to 58 characters (63 minus the 5 random ones); so do we. */
const MAX_GENERATE_NAME = 58;

/** Options of {@link createSlicePublisher}. */
export interface SlicePublisherOptions {
  /** The API server and credentials (`loadKubeAccess`). */
  readonly access: KubeApiAccess;
  /** The DRA driver name (`gpu.kdp.dev`): `spec.driver` of every slice. */
  readonly driverName: string;
  /** This node: `spec.nodeName` and the owner of every slice. */
  readonly nodeName: string;
  /** The `resource.k8s.io` version, shared with the claim reader; default one of its own, logged to `logger`. */
  readonly discovery?: ResourceApiDiscovery | undefined;
  /**
   * The initial device model. Without it nothing is written (slices left by a previous run stay) until the first
   * {@link SlicePublisher.update}.
   */
  readonly pools?: SlicePools | undefined;
  /** Devices per slice, 1…128; default 128. */
  readonly maxDevicesPerSlice?: number | undefined;
  /** How long changes (updates, watch events) are collected before one reconcile; default 100 ms. */
  readonly debounceMs?: number | undefined;
  /**
   * When the only change of a pool is one existing slice, update that slice and keep the generation (one atomic
   * write, as Go's resourceslice controller does). Default false: every content change bumps the generation and
   * rewrites all slices of the pool.
   */
  readonly keepGenerationForSingleUpdate?: boolean | undefined;
  /** Delete this driver's slices of this node on {@link SlicePublisher.stop}; default false (the kubelet does it). */
  readonly deleteOnStop?: boolean | undefined;
  /** The API server ends each watch after this long (then the slices are listed again); default 300. */
  readonly watchTimeoutSeconds?: number | undefined;
  /** Milliseconds one request may take; default 10 000. */
  readonly requestTimeoutMs?: number | undefined;
  /** Delay before retry number `attempt` (1-based); default 200 ms doubling to 30 s, with jitter. */
  readonly backoff?: ((attempt: number) => number) | undefined;
  readonly clock?: Clock | undefined;
  readonly logger?: LifecycleLogger | undefined;
  readonly onEvent?: ((event: SlicePublisherEvent) => void) | undefined;
}

/** A running ResourceSlice publisher. */
export interface SlicePublisher {
  /** Lists the node's slices, starts the watch and publishes the initial pools (in the background). */
  start(): void;
  /** Replaces the device model; the change is published after `debounceMs`. Throws on a duplicate device name. */
  update(pools: SlicePools): void;
  /**
   * Resolves once everything asked for so far is published (or rejected with 422); waits through retries. Only
   * after {@link SlicePublisher.start}.
   */
  synced(): Promise<void>;
  /** Stops the watch and the timers, waits for a write in progress and, with `deleteOnStop`, deletes the slices. */
  stop(): Promise<void>;
}

/**
 * Publishes a node's device model as ResourceSlices of one driver, in the `resource.k8s.io` version the API server
 * serves (discovery: v1, else v1beta2, else v1beta1; again after a 404 for it): one pool per resource,
 * at most 128 devices per slice (split by name), `pool.generation` bumped on every content change and
 * `resourceSliceCount`, an owner reference to the Node, `generateName` names. It lists the driver's slices on the
 * node (field selector), watches them and re-publishes what someone else deleted (the kubelet wipes a node's
 * slices when it starts); updates carry the `resourceVersion` and a 409 lists again and retries with backoff;
 * a 422 is reported once and not retried until the pool changes.
 */
export function createSlicePublisher(options: SlicePublisherOptions): SlicePublisher {
  const { driverName, nodeName } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const emit = options.onEvent ?? (() => undefined);
  const maxPerSlice = options.maxDevicesPerSlice ?? MAX_DEVICES_PER_SLICE;
  if (!Number.isInteger(maxPerSlice) || maxPerSlice < 1 || maxPerSlice > MAX_DEVICES_PER_SLICE)
    throw new RangeError(`maxDevicesPerSlice must be 1…${MAX_DEVICES_PER_SLICE}, not ${maxPerSlice}`);
  const backoff = options.backoff ?? createBackoff({ initialMs: 200, maxMs: 30_000 });
  const client = createKubeClient({ access: options.access, timeoutMs: options.requestTimeoutMs });
  const history: PoolHistory = { lastGeneration: new Map(), rejected: new Map() };
  const discovery =
    options.discovery ??
    createResourceApiDiscovery({ client, purpose: `ResourceSlices of ${driverName}`, logger });
  let writtenVersion: ResourceApiVersion | undefined;
  let desired: Map<string, DesiredPool> | undefined =
    options.pools === undefined ? undefined : toDesiredPools(options.pools, maxPerSlice);
  let stopped = false;

  const cache = createSliceCache({
    client,
    discovery,
    driverName,
    nodeName,
    watchTimeoutSeconds: options.watchTimeoutSeconds ?? 300,
    backoff,
    clock,
    logger,
    onChange: (delayMs) => loop.request(delayMs),
  });
  const writer = createSliceWriter(client, cache);
  const syncContext = (): PoolSyncContext => ({
    driverName,
    nodeName,
    nodeUid: cache.nodeUid(),
    generateName: `${nodeName}-${driverName}-`.slice(0, MAX_GENERATE_NAME),
    keepGenerationForSingleUpdate: options.keepGenerationForSingleUpdate === true,
    writer,
    history,
    logger,
    emit,
  });

  const reconcile = async (): Promise<void> => {
    if (cache.needsList()) await cache.list();
    if (desired === undefined) return;
    // Content refused for a field the old version lacked is tried again in another one.
    if (cache.version() !== writtenVersion) history.rejected.clear();
    writtenVersion = cache.version();
    const byPool = slicesByPool(cache.slices());
    const context = syncContext();
    let failure: unknown;
    for (const pool of [...new Set([...desired.keys(), ...byPool.keys()])].sort()) {
      if (stopped) return;
      try {
        await syncPool(context, pool, byPool.get(pool) ?? [], desired.get(pool));
      } catch (error) {
        if (!isStale(error)) failure ??= error;
        else {
          // A write met a newer or a deleted object: list again, then retry.
          cache.invalidate();
          logger.debug({ driver: driverName, pool }, `ResourceSlice ${messageOf(error)}; listing again`);
          emit({ type: 'conflict', pool, message: messageOf(error) });
          failure ??= new StaleWriteError(messageOf(error));
        }
      }
    }
    if (failure !== undefined) throw failure;
  };

  const loop = createPublishLoop({
    clock,
    debounceMs: options.debounceMs ?? 100,
    backoff,
    pass: reconcile,
    onFailure(error, attempt, retryInMs) {
      if (error instanceof StaleWriteError) return;
      logger.warn({ driver: driverName, attempt, retryInMs }, `ResourceSlices: ${messageOf(error)}`);
      emit({ type: 'error', message: messageOf(error), attempt, retryInMs });
    },
  });

  /** With `deleteOnStop`: lists once more and deletes every slice, reporting each pool. */
  const deleteAll = async (): Promise<void> => {
    await cache.list().catch(() => undefined);
    const deleted = new Map<string, number>();
    for (const slice of cache.slices()) {
      await writer.remove(slice);
      const pool = slice.spec.pool?.name ?? '';
      deleted.set(pool, (deleted.get(pool) ?? 0) + 1);
    }
    for (const [pool, count] of deleted) emit({ type: 'removed', pool, deleted: count });
  };

  return {
    start: () => loop.start(),
    update(pools) {
      desired = toDesiredPools(pools, maxPerSlice);
      loop.request();
    },
    synced: () => loop.synced(),
    async stop() {
      if (stopped) return;
      stopped = true;
      cache.stop();
      await loop.stop(options.deleteOnStop === true ? deleteAll : async () => undefined);
    },
  };
}

/** A slice write that met a newer or a deleted object: reported as a conflict, retried after a fresh list. */
class StaleWriteError extends Error {}

function isStale(error: unknown): boolean {
  return error instanceof KubeApiError && (error.status === 409 || error.status === 404);
}

/** The slices grouped by pool name. */
function slicesByPool(slices: readonly SliceObject[]): Map<string, SliceObject[]> {
  const byPool = new Map<string, SliceObject[]>();
  for (const slice of slices) {
    const pool = slice.spec.pool?.name ?? '';
    byPool.set(pool, [...(byPool.get(pool) ?? []), slice]);
  }
  return byPool;
}
