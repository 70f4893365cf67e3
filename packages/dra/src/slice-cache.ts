import type { Clock, LifecycleLogger } from '@kdp/base';
import type { KubeClient, KubeWatch, KubeWatchEvent } from '@kdp/core';
import { messageOf } from './message-of';
import { asSlice, SLICES_PATH, type SliceObject } from './slice-object';

/** Options of {@link createSliceCache}. */
export interface SliceCacheOptions {
  readonly client: KubeClient;
  readonly driverName: string;
  readonly nodeName: string;
  /** The API server ends each watch after this long (then the slices are listed again). */
  readonly watchTimeoutSeconds: number;
  /** Delay before the list after failed watch number `attempt` (1-based). */
  readonly backoff: (attempt: number) => number;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  /**
   * Someone else changed a slice (`delayMs` undefined: debounce), or the watch ended and the slices must be
   * listed again after `delayMs`.
   */
  readonly onChange: (delayMs?: number) => void;
}

/** What the API server holds of this driver's slices on this node, kept current by a list and a watch. */
export interface SliceCache {
  /** Whether a list must come first: none yet, the watch ended, or {@link SliceCache.invalidate}. */
  needsList(): boolean;
  /** Marks the cache stale: a write met a newer or a deleted object. */
  invalidate(): void;
  /** Reads the Node's UID and lists the slices, then watches from the list's resourceVersion. */
  list(): Promise<void>;
  /** The Node's UID, once listed: the owner of every slice. */
  nodeUid(): string | undefined;
  /** The cached slices. */
  slices(): SliceObject[];
  /** Caches a slice the API server answered a write with. */
  remember(stored: unknown): void;
  /** Drops a deleted slice. */
  forget(name: string): void;
  /** Stops the watch; a later {@link SliceCache.list} starts none. */
  stop(): void;
}

/** Lists and watches one driver's ResourceSlices of one node (field selector) and caches them by name. */
export function createSliceCache(options: SliceCacheOptions): SliceCache {
  const { client, driverName, nodeName, clock, logger } = options;
  const selector = encodeURIComponent(`spec.nodeName=${nodeName},spec.driver=${driverName}`);
  const cache = new Map<string, SliceObject>();
  let nodeUid: string | undefined;
  let needList = true;
  let stopped = false;
  let watch: KubeWatch | undefined;
  let watchFailures = 0;

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
    options.onChange();
  };

  const startWatch = (resourceVersion: string): void => {
    watch?.stop();
    const startedAt = clock.now();
    const current = client.watch(
      `${SLICES_PATH}?fieldSelector=${selector}&resourceVersion=${encodeURIComponent(resourceVersion)}` +
        `&allowWatchBookmarks=true&timeoutSeconds=${options.watchTimeoutSeconds}`,
      onWatchEvent,
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
      options.onChange(failed ? options.backoff(watchFailures) : 0);
    };
    current.done.then(() => ended(), ended);
  };

  return {
    needsList: () => needList || nodeUid === undefined,
    invalidate() {
      needList = true;
    },
    async list() {
      const node = (await client.get(`/api/v1/nodes/${encodeURIComponent(nodeName)}`)) as
        { metadata?: { uid?: string } } | undefined;
      const uid = node?.metadata?.uid;
      if (typeof uid !== 'string') throw new Error(`node ${nodeName} has no uid`);
      nodeUid = uid;
      const answer = await client.list(`${SLICES_PATH}?fieldSelector=${selector}`);
      cache.clear();
      for (const item of answer.items) {
        const slice = asSlice(item);
        if (slice !== undefined) cache.set(slice.metadata.name, slice);
      }
      needList = false;
      if (!stopped) startWatch(answer.resourceVersion ?? '0');
    },
    nodeUid: () => nodeUid,
    slices: () => [...cache.values()],
    remember(stored) {
      const slice = asSlice(stored);
      if (slice !== undefined) cache.set(slice.metadata.name, slice);
    },
    forget(name) {
      cache.delete(name);
    },
    stop() {
      stopped = true;
      watch?.stop();
      watch = undefined;
    },
  };
}

function rvNumber(slice: SliceObject | undefined): number {
  return Number(slice?.metadata.resourceVersion ?? NaN);
}
