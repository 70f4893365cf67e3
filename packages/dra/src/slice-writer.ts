import { KubeApiError, type KubeClient } from '@kdp/core';
import type { SliceCache } from './slice-cache';
import type { ResourceApiVersion } from './resource-api-discovery';
import { slicePath, slicesPath, type SliceObject } from './slice-object';
import { toVersionSlice, type SliceBody } from './slice-version';

/**
 * The writes of ResourceSlices, each answer kept in the cache. Bodies are in the internal `resource.k8s.io/v1`
 * shape and written in the version the cache listed in ({@link toVersionSlice}: a field that version lacks throws).
 */
export interface SliceWriter {
  /** Creates a slice (`generateName`). */
  create(body: SliceBody): Promise<void>;
  /** Replaces a slice; its `metadata.resourceVersion` makes a stale write fail with 409. */
  update(name: string, body: SliceBody): Promise<void>;
  /** Deletes a slice if it is still the version cached (else 409); one already gone is fine. */
  remove(slice: SliceObject): Promise<void>;
}

/** Writes ResourceSlices through `client` and records the results in `cache`. */
export function createSliceWriter(client: KubeClient, cache: SliceCache): SliceWriter {
  const version = (): ResourceApiVersion => cache.version() ?? 'v1';
  return {
    async create(body) {
      cache.remember(await client.create(slicesPath(version()), toVersionSlice(body, version())));
    },
    async update(name, body) {
      cache.remember(await client.update(slicePath(version(), name), toVersionSlice(body, version())));
    },
    async remove(slice) {
      const { name, resourceVersion } = slice.metadata;
      try {
        await client.delete(
          slicePath(version(), name),
          resourceVersion === undefined ? {} : { preconditions: { resourceVersion } },
        );
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404)) throw error;
      }
      cache.forget(name);
    },
  };
}
