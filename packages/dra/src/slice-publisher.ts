import {
  createBackoff,
  silentLogger,
  systemClock,
  type Clock,
  type LifecycleLogger,
  type TimerHandle,
} from '@kdp/base';
import { getKubeJson, KubeApiError, type KubeApiAccess } from '@kdp/core';
import {
  deleteKube,
  KubeStatusError,
  postKubeJson,
  putKubeJson,
  watchKube,
  type KubeStatusCause,
  type KubeWatch,
  type KubeWatchEvent,
} from './kube-client';
import {
  deviceKey,
  MAX_DEVICES_PER_SLICE,
  splitPool,
  type ApiDevice,
  type SliceDevice,
  type SlicePools,
} from './pool-slices';

const SLICES_PATH = '/apis/resource.k8s.io/v1/resourceslices';
/** kube-apiserver truncates `generateName` to 58 characters (63 minus the 5 random ones); so do we. */
const MAX_GENERATE_NAME = 58;

/** What the publisher reports (`onEvent`). */
export type SlicePublisherEvent =
  | {
      /** A pool's slices were written: its new generation and how many slices were created, updated, deleted. */
      readonly type: 'published';
      readonly pool: string;
      readonly generation: number;
      readonly created: number;
      readonly updated: number;
      readonly deleted: number;
    }
  | {
      /** A pool no longer in the device model: its slices were deleted. */
      readonly type: 'removed';
      readonly pool: string;
      readonly deleted: number;
    }
  | {
      /** The API server refused a pool's slices (422): not retried until that pool's devices change. */
      readonly type: 'rejected';
      readonly pool: string;
      readonly message: string;
      readonly causes: readonly KubeStatusCause[];
    }
  | {
      /** A write hit a newer object (409) or a deleted one (404): the slices are listed again and it is retried. */
      readonly type: 'conflict';
      readonly pool: string;
      readonly message: string;
    }
  | {
      /** Any other failure (network, 403, the Node missing): retried after `retryInMs`. */
      readonly type: 'error';
      readonly message: string;
      readonly attempt: number;
      readonly retryInMs: number;
    };

/** Options of {@link createSlicePublisher}. */
export interface SlicePublisherOptions {
  /** The API server and credentials (`loadKubeAccess`). */
  readonly access: KubeApiAccess;
  /** The DRA driver name (`gpu.kdp.dev`): `spec.driver` of every slice. */
  readonly driverName: string;
  /** This node: `spec.nodeName` and the owner of every slice. */
  readonly nodeName: string;
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

/** The `resource.k8s.io/v1` ResourceSlice fields the publisher reads and writes. */
interface SliceObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    ownerReferences?: { uid?: string; kind?: string }[];
    [key: string]: unknown;
  };
  spec: {
    driver?: string;
    nodeName?: string;
    pool?: { name?: string; generation?: number; resourceSliceCount?: number };
    devices?: unknown[];
    [key: string]: unknown;
  };
}

/** One pool of the device model, cut into slices. */
interface DesiredPool {
  readonly slices: readonly ApiDevice[][];
  readonly keys: readonly string[][];
  /** The whole pool's content, to recognise it again after a 422. */
  readonly key: string;
}

const asSlice = (value: unknown): SliceObject | undefined => {
  const object = value as Partial<SliceObject> | null;
  if (typeof object?.metadata?.name !== 'string' || typeof object.spec !== 'object') return undefined;
  return object as SliceObject;
};

const rvNumber = (slice: SliceObject | undefined): number => Number(slice?.metadata.resourceVersion ?? NaN);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const isStale = (error: unknown): boolean =>
  error instanceof KubeApiError && (error.status === 409 || error.status === 404);

/** A slice write that met a newer or a deleted object: reported as a conflict, retried after a fresh list. */
class StaleWriteError extends Error {}

/**
 * Publishes a node's device model as `resource.k8s.io/v1` ResourceSlices of one driver: one pool per resource,
 * at most 128 devices per slice (split by name), `pool.generation` bumped on every content change and
 * `resourceSliceCount`, an owner reference to the Node, `generateName` names. It lists the driver's slices on the
 * node (field selector), watches them and re-publishes what someone else deleted (the kubelet wipes a node's
 * slices when it starts); updates carry the `resourceVersion` and a 409 lists again and retries with backoff;
 * a 422 is reported once and not retried until the pool changes.
 */
export function createSlicePublisher(options: SlicePublisherOptions): SlicePublisher {
  const { access, driverName, nodeName } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const emit = options.onEvent ?? (() => undefined);
  const maxPerSlice = options.maxDevicesPerSlice ?? MAX_DEVICES_PER_SLICE;
  if (!Number.isInteger(maxPerSlice) || maxPerSlice < 1 || maxPerSlice > MAX_DEVICES_PER_SLICE)
    throw new RangeError(`maxDevicesPerSlice must be 1…${MAX_DEVICES_PER_SLICE}, not ${maxPerSlice}`);
  const debounceMs = options.debounceMs ?? 100;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const watchTimeout = options.watchTimeoutSeconds ?? 300;
  const backoff = options.backoff ?? createBackoff({ initialMs: 200, maxMs: 30_000 });
  const selector = encodeURIComponent(`spec.nodeName=${nodeName},spec.driver=${driverName}`);
  const generateName = `${nodeName}-${driverName}-`.slice(0, MAX_GENERATE_NAME);

  let desired: Map<string, DesiredPool> | undefined;
  const cache = new Map<string, SliceObject>();
  /** The highest generation written per pool, so a wiped pool comes back with a higher one. */
  const lastGeneration = new Map<string, number>();
  /** The content of pools the API server refused (422), not written again until it changes. */
  const rejected = new Map<string, string>();
  let nodeUid: string | undefined;
  let needList = true;
  let started = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  let timerDue = 0;
  let notBefore = 0;
  let running: Promise<void> | undefined;
  let dirty = false;
  let attempt = 0;
  let requested = 0;
  let completed = -1;
  let waiters: { upTo: number; resolve: () => void }[] = [];
  let watch: KubeWatch | undefined;
  let watchFailures = 0;

  const toDesired = (pools: SlicePools): Map<string, DesiredPool> => {
    const entries = pools instanceof Map ? [...pools.entries()] : Object.entries(pools);
    const result = new Map<string, DesiredPool>();
    for (const [pool, devices] of entries as [string, readonly SliceDevice[]][]) {
      let slices: ApiDevice[][];
      try {
        slices = splitPool(devices, maxPerSlice);
      } catch (error) {
        throw new Error(`pool ${pool}: ${messageOf(error)}`);
      }
      const keys = slices.map((slice) => slice.map(deviceKey));
      result.set(pool, { slices, keys, key: keys.map((k) => k.join('\n')).join('\n--\n') });
    }
    return result;
  };

  const schedule = (delayMs: number): void => {
    if (stopped || !started) return;
    if (running !== undefined) {
      dirty = true;
      return;
    }
    const due = Math.max(clock.now() + delayMs, notBefore);
    if (timer !== undefined) {
      if (timerDue <= due) return;
      clock.clearTimeout(timer);
    }
    timerDue = due;
    timer = clock.setTimeout(
      () => {
        timer = undefined;
        run();
      },
      Math.max(0, due - clock.now()),
    );
  };

  const settleWaiters = (): void => {
    const ready = waiters.filter((w) => w.upTo <= completed);
    waiters = waiters.filter((w) => w.upTo > completed);
    for (const w of ready) w.resolve();
  };

  const run = (): void => {
    if (stopped || running !== undefined) return;
    dirty = false;
    const upTo = requested;
    running = reconcile()
      .then(
        () => {
          attempt = 0;
          notBefore = 0;
          completed = Math.max(completed, upTo);
          settleWaiters();
        },
        (error: unknown) => {
          attempt += 1;
          const retryInMs = backoff(attempt);
          notBefore = clock.now() + retryInMs;
          dirty = true;
          if (!(error instanceof StaleWriteError)) {
            logger.warn({ driver: driverName, attempt, retryInMs }, `ResourceSlices: ${messageOf(error)}`);
            emit({ type: 'error', message: messageOf(error), attempt, retryInMs });
          }
        },
      )
      .finally(() => {
        running = undefined;
        if (dirty) schedule(debounceMs);
      });
  };

  const request = (): void => {
    requested += 1;
    schedule(debounceMs);
  };

  const onWatchEvent = (event: KubeWatchEvent): void => {
    watchFailures = 0;
    if (event.type === 'ERROR') {
      // 410 Expired and the like: list again.
      watch?.stop();
      return;
    }
    const slice = asSlice(event.object);
    if (slice === undefined) return;
    if (event.type === 'BOOKMARK') return;
    const cached = cache.get(slice.metadata.name);
    if (event.type === 'DELETED') {
      if (cached === undefined) return;
      cache.delete(slice.metadata.name);
    } else {
      // Our own writes are in the cache already, with this resourceVersion or a newer one.
      if (cached !== undefined && rvNumber(cached) >= rvNumber(slice)) return;
      cache.set(slice.metadata.name, slice);
    }
    request();
  };

  const startWatch = (resourceVersion: string): void => {
    watch?.stop();
    const startedAt = clock.now();
    const current = watchKube(
      access,
      `${SLICES_PATH}?fieldSelector=${selector}&resourceVersion=${encodeURIComponent(resourceVersion)}` +
        `&allowWatchBookmarks=true&timeoutSeconds=${watchTimeout}`,
      onWatchEvent,
      timeoutMs,
    );
    watch = current;
    const ended = (error?: unknown): void => {
      if (stopped || watch !== current) return;
      watch = undefined;
      needList = true;
      // A watch refused or ended at once (no permission, a proxy cutting it) must not turn into a hot loop.
      const failed = error !== undefined || clock.now() - startedAt < 1000;
      if (failed) {
        watchFailures += 1;
        if (error !== undefined)
          logger.warn({ driver: driverName }, `ResourceSlice watch: ${messageOf(error)}; listing again`);
      }
      requested += 1;
      schedule(failed ? backoff(watchFailures) : 0);
    };
    current.done.then(() => ended(), ended);
  };

  const list = async (): Promise<void> => {
    const node = (await getKubeJson(access, `/api/v1/nodes/${encodeURIComponent(nodeName)}`, timeoutMs)) as {
      metadata?: { uid?: string };
    };
    if (typeof node.metadata?.uid !== 'string') throw new Error(`node ${nodeName} has no uid`);
    nodeUid = node.metadata.uid;
    const answer = (await getKubeJson(access, `${SLICES_PATH}?fieldSelector=${selector}`, timeoutMs)) as {
      metadata?: { resourceVersion?: string };
      items?: unknown[];
    };
    cache.clear();
    for (const item of answer.items ?? []) {
      const slice = asSlice(item);
      if (slice !== undefined) cache.set(slice.metadata.name, slice);
    }
    needList = false;
    if (!stopped) startWatch(answer.metadata?.resourceVersion ?? '0');
  };

  const ownerReferences = (): unknown[] => [
    { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid, controller: true },
  ];

  const removeSlice = async (slice: SliceObject): Promise<void> => {
    try {
      await deleteKube(access, `${SLICES_PATH}/${encodeURIComponent(slice.metadata.name)}`, {
        timeoutMs,
        ...(slice.metadata.resourceVersion === undefined
          ? {}
          : { preconditions: { resourceVersion: slice.metadata.resourceVersion } }),
      });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    }
    cache.delete(slice.metadata.name);
  };

  const remember = (stored: unknown): void => {
    const slice = asSlice(stored);
    if (slice !== undefined) cache.set(slice.metadata.name, slice);
  };

  const syncPool = async (
    pool: string,
    existing: SliceObject[],
    want: DesiredPool | undefined,
  ): Promise<void> => {
    if (want === undefined) {
      for (const slice of existing) await removeSlice(slice);
      lastGeneration.delete(pool);
      rejected.delete(pool);
      logger.info({ driver: driverName, pool, deleted: existing.length }, 'ResourceSlice pool removed');
      emit({ type: 'removed', pool, deleted: existing.length });
      return;
    }
    if (rejected.get(pool) === want.key) return;
    rejected.delete(pool);
    const count = want.slices.length;
    let generation = lastGeneration.get(pool) ?? 0;
    for (const slice of existing) generation = Math.max(generation, slice.spec.pool?.generation ?? 0);

    // Match the existing slices to the desired ones by the slice their first device belongs in; prefer the
    // newest generation, then the name, so the match is the same every time.
    const indexOf = new Map<string, number>();
    want.slices.forEach((devices, i) => devices.forEach((d) => indexOf.set(d.name, i)));
    const candidates = [...existing].sort(
      (a, b) =>
        (b.spec.pool?.generation ?? 0) - (a.spec.pool?.generation ?? 0) ||
        (a.metadata.name < b.metadata.name ? -1 : 1),
    );
    const matched = new Map<number, SliceObject>();
    const unmatched: SliceObject[] = [];
    for (const slice of candidates) {
      const first = slice.spec.devices?.[0] as { name?: unknown } | undefined;
      const index = first === undefined ? undefined : indexOf.get(String(first.name));
      if (index === undefined || matched.has(index)) unmatched.push(slice);
      else matched.set(index, slice);
    }
    // The rest fill the desired slices left over (an update is cheaper than a delete and a create).
    for (let i = 0; i < count && unmatched.length > 0; i++)
      if (!matched.has(i)) matched.set(i, unmatched.shift() as SliceObject);
    const obsolete = unmatched;
    const differs = (i: number, slice: SliceObject): boolean => {
      const devices = slice.spec.devices ?? [];
      const keys = want.keys[i] ?? [];
      return (
        devices.length !== keys.length ||
        devices.some((d, j) => deviceKey(d) !== keys[j]) ||
        slice.spec.pool?.resourceSliceCount !== count ||
        !(slice.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node' && o.uid === nodeUid)
      );
    };
    const changed = [...matched].filter(([i, slice]) => differs(i, slice)).map(([i]) => i);
    const stale = [...matched]
      .filter(([, slice]) => slice.spec.pool?.generation !== generation)
      .map(([i]) => i);
    if (obsolete.length === 0 && matched.size === count && changed.length === 0 && stale.length === 0) {
      lastGeneration.set(pool, generation);
      return;
    }
    const single =
      options.keepGenerationForSingleUpdate === true &&
      generation > 0 &&
      obsolete.length === 0 &&
      matched.size === count &&
      stale.length === 0 &&
      changed.length === 1;
    if (!single) generation += 1;
    const toUpdate = single ? changed : [...matched.keys()];

    const spec = (i: number): SliceObject['spec'] => ({
      driver: driverName,
      nodeName,
      pool: { name: pool, generation, resourceSliceCount: count },
      devices: want.slices[i] ?? [],
    });
    const wrote = (): void => {
      lastGeneration.set(pool, Math.max(lastGeneration.get(pool) ?? 0, generation));
    };
    let created = 0;
    try {
      for (const slice of obsolete) await removeSlice(slice);
      for (const i of toUpdate.sort((a, b) => a - b)) {
        const current = matched.get(i) as SliceObject;
        const body = {
          ...current,
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceSlice',
          metadata: { ...current.metadata, ownerReferences: ownerReferences() },
          spec: spec(i),
        };
        remember(
          await putKubeJson(
            access,
            `${SLICES_PATH}/${encodeURIComponent(current.metadata.name)}`,
            body,
            timeoutMs,
          ),
        );
        wrote();
      }
      for (let i = 0; i < count; i++) {
        if (matched.has(i)) continue;
        const body = {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceSlice',
          metadata: { generateName, ownerReferences: ownerReferences() },
          spec: spec(i),
        };
        remember(await postKubeJson(access, SLICES_PATH, body, timeoutMs));
        created += 1;
        wrote();
      }
    } catch (error) {
      if (error instanceof KubeStatusError && error.status === 422) {
        rejected.set(pool, want.key);
        logger.error(
          { driver: driverName, pool, causes: error.causes },
          `ResourceSlices of pool ${pool} refused: ${error.message}`,
        );
        emit({ type: 'rejected', pool, message: error.message, causes: error.causes });
        return;
      }
      throw error;
    }
    const result = {
      pool,
      generation,
      created,
      updated: toUpdate.length,
      deleted: obsolete.length,
    };
    logger.info({ driver: driverName, ...result }, 'ResourceSlices published');
    emit({ type: 'published', ...result });
  };

  const reconcile = async (): Promise<void> => {
    if (needList || nodeUid === undefined) await list();
    if (desired === undefined) return;
    const byPool = new Map<string, SliceObject[]>();
    for (const slice of cache.values()) {
      const pool = slice.spec.pool?.name ?? '';
      byPool.set(pool, [...(byPool.get(pool) ?? []), slice]);
    }
    const pools = new Set([...desired.keys(), ...byPool.keys()]);
    let failure: unknown;
    for (const pool of [...pools].sort()) {
      if (stopped) return;
      try {
        await syncPool(pool, byPool.get(pool) ?? [], desired.get(pool));
      } catch (error) {
        if (isStale(error)) {
          // A write met a newer or a deleted object: list again, then retry.
          needList = true;
          logger.debug({ driver: driverName, pool }, `ResourceSlice ${messageOf(error)}; listing again`);
          emit({ type: 'conflict', pool, message: messageOf(error) });
          failure ??= new StaleWriteError(messageOf(error));
        } else failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  };

  if (options.pools !== undefined) desired = toDesired(options.pools);

  return {
    start() {
      if (started || stopped) return;
      started = true;
      requested += 1;
      schedule(0);
    },
    update(pools) {
      desired = toDesired(pools);
      request();
    },
    synced() {
      if (completed >= requested) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ upTo: requested, resolve }));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      watch?.stop();
      watch = undefined;
      await running;
      if (options.deleteOnStop === true) {
        await list().catch(() => undefined);
        const byPool = new Map<string, number>();
        for (const slice of [...cache.values()]) {
          await removeSlice(slice);
          const pool = slice.spec.pool?.name ?? '';
          byPool.set(pool, (byPool.get(pool) ?? 0) + 1);
        }
        for (const [pool, deleted] of byPool) emit({ type: 'removed', pool, deleted });
      }
      for (const w of waiters) w.resolve();
      waiters = [];
    },
  };
}
