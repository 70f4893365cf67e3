import { KubeApiError, type KubeClient } from '@kdp/core';
import type { SliceCache } from './slice-cache';
import { SLICES_PATH, slicePath, type SliceObject } from './slice-object';

/** The writes of ResourceSlices, each answer kept in the cache. */
export interface SliceWriter {
  /** Creates a slice (`generateName`). */
  create(body: unknown): Promise<void>;
  /** Replaces a slice; its `metadata.resourceVersion` makes a stale write fail with 409. */
  update(name: string, body: unknown): Promise<void>;
  /** Deletes a slice if it is still the version cached (else 409); one already gone is fine. */
  remove(slice: SliceObject): Promise<void>;
}

/** Writes ResourceSlices through `client` and records the results in `cache`. */
export function createSliceWriter(client: KubeClient, cache: SliceCache): SliceWriter {
  return {
    async create(body) {
      cache.remember(await client.create(SLICES_PATH, body));
    },
    async update(name, body) {
      cache.remember(await client.update(slicePath(name), body));
    },
    async remove(slice) {
      const { name, resourceVersion } = slice.metadata;
      try {
        await client.delete(
          slicePath(name),
          resourceVersion === undefined ? {} : { preconditions: { resourceVersion } },
        );
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404)) throw error;
      }
      cache.forget(name);
    },
  };
}
