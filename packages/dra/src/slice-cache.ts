import type { Clock, LifecycleLogger } from '@kdp/base';
import type { KubeClient, KubeWatch, KubeWatchEvent } from '@kdp/core';
import { messageOf } from './message-of';
import { isNotFound, type ResourceApiDiscovery, type ResourceApiVersion } from './resource-api-discovery';
import { asSlice, slicesPath, type SliceObject } from './slice-object';
import { fromVersionSlice } from './slice-version';

/** Options of {@link createSliceCache}. */
export interface SliceCacheOptions {
  readonly client: KubeClient;
  /** The `resource.k8s.io` version to list and watch in. */
  readonly discovery: ResourceApiDiscovery;
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
  /**
   * Reads the Node's UID and lists the slices, then watches from the list's resourceVersion. A 404 for the list
   * discovers the `resource.k8s.io` version again and, when it changed, lists in the new one.
   */
  list(): Promise<void>;
  /** The version the slices were listed in (and are written in); undefined before the first list. */
  version(): ResourceApiVersion | undefined;
  /** The Node's UID, once listed: the owner of every slice. */
  nodeUid(): string | undefined;
  /** The cached slices. */
  slices(): SliceObject[];
  /** Caches a slice the API server answered a write with (in {@link SliceCache.version}), unless deleted since. */
  remember(stored: unknown): void;
  /** Drops a deleted slice. */
  forget(name: string): void;
  /** Stops the watch; a later {@link SliceCache.list} starts none. */
  stop(): void;
}

/**
 * Lists and watches one driver's ResourceSlices of one node (field selector) and caches them by name, in the
 * internal `resource.k8s.io/v1` shape whatever version the API server serves.
 */
export function createSliceCache(options: SliceCacheOptions): SliceCache {
  const { client, driverName, nodeName, clock, logger } = options;
  const selector = encodeURIComponent(`spec.nodeName=${nodeName},spec.driver=${driverName}`);
  const cache = new Map<string, SliceObject>();
  /** Slices deleted since the last list: the answer to a write of one may arrive after its DELETED event. */
  const deleted = new Set<string>();
  let nodeUid: string | undefined;
  let version: ResourceApiVersion | undefined;
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
    const slice = read(event.object);
    if (slice === undefined) return;
    if (event.type === 'BOOKMARK') return;
    const cached = cache.get(slice.metadata.name);
    if (event.type === 'DELETED') {
      // Also one not cached yet: the answer to its write is still on its way.
      deleted.add(slice.metadata.name);
      cache.delete(slice.metadata.name);
    } else {
      // Our own writes are in the cache already, with this resourceVersion or a newer one.
      if (cached !== undefined && rvNumber(cached) >= rvNumber(slice)) return;
      cache.set(slice.metadata.name, slice);
    }
    options.onChange();
  };

  /** `value` as a cached slice, converted from the version listed in. */
  const read = (value: unknown): SliceObject | undefined => {
    const slice = asSlice(value);
    return slice === undefined || version === undefined ? slice : fromVersionSlice(slice, version);
  };

  /** Lists the slices in the version in use; after a 404 once more in the version discovered again. */
  const listSlices = async (): Promise<{
    items: readonly unknown[];
    resourceVersion?: string | undefined;
  }> => {
    const current = await options.discovery.version();
    try {
      const answer = await client.list(`${slicesPath(current)}?fieldSelector=${selector}`);
      version = current;
      return answer;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const next = await options.discovery.rediscover();
      if (next === current) throw error;
      const answer = await client.list(`${slicesPath(next)}?fieldSelector=${selector}`);
      version = next;
      return answer;
    }
  };

  const startWatch = (resourceVersion: string): void => {
    watch?.stop();
    const startedAt = clock.now();
    const current = client.watch(
      `${slicesPath(version ?? 'v1')}?fieldSelector=${selector}&resourceVersion=${encodeURIComponent(resourceVersion)}` +
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
      const answer = await listSlices();
      cache.clear();
      deleted.clear();
      for (const item of answer.items) {
        const slice = read(item);
        if (slice !== undefined) cache.set(slice.metadata.name, slice);
      }
      needList = false;
      if (!stopped) startWatch(answer.resourceVersion ?? '0');
    },
    nodeUid: () => nodeUid,
    version: () => version,
    slices: () => [...cache.values()],
    remember(stored) {
      const slice = read(stored);
      // A slice deleted (watch) before its write's answer came stays deleted, so that it is written again.
      if (slice !== undefined && !deleted.has(slice.metadata.name)) cache.set(slice.metadata.name, slice);
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
