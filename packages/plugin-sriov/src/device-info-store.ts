import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deviceInfoFileName } from './device-info';

/** Writes and removes the Multus device-info files of allocated devices. */
export interface DeviceInfoStore {
  readonly dir: string;
  /** Replaces the file of one device (delete, then create 0444, as upstream). */
  write(resourceName: string, deviceId: string, json: string): Promise<void>;
  /** Removes the file of one device (no error when absent). */
  remove(resourceName: string, deviceId: string): Promise<void>;
  /** Removes the files of every device of a resource except `keep`; returns the IDs removed. */
  prune(resourceName: string, keep: ReadonlySet<string>): Promise<string[]>;
  /** Removes every file this store wrote (shutdown, as upstream cleans its pools on stop). */
  removeAll(): Promise<void>;
}

/** Creates a store over `dir` (created 0700 when missing). */
export function createDeviceInfoStore(dir: string): DeviceInfoStore {
  const written = new Map<string, Set<string>>();
  let sequence = 0;
  const pathOf = (resourceName: string, id: string): string =>
    join(dir, deviceInfoFileName(resourceName, id));
  const store: DeviceInfoStore = {
    dir,
    async write(resourceName, deviceId, json) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = pathOf(resourceName, deviceId);
      // Upstream deletes, then creates the file 0444. A temp file renamed over it gives readers the same
      // result, and two Allocates of one device (several containers) cannot collide.
      const temp = join(
        dir,
        `.${deviceInfoFileName(resourceName, deviceId)}.${process.pid}.${(sequence += 1)}`,
      );
      try {
        await writeFile(temp, json, { mode: 0o444, flag: 'wx' });
        await rename(temp, path);
      } finally {
        await rm(temp, { force: true });
      }
      let ids = written.get(resourceName);
      if (ids === undefined) written.set(resourceName, (ids = new Set()));
      ids.add(deviceId);
    },
    async remove(resourceName, deviceId) {
      await rm(pathOf(resourceName, deviceId), { force: true });
      written.get(resourceName)?.delete(deviceId);
    },
    async prune(resourceName, keep) {
      const gone = [...(written.get(resourceName) ?? [])].filter((id) => !keep.has(id));
      for (const id of gone) await store.remove(resourceName, id);
      return gone;
    },
    async removeAll() {
      for (const [resourceName, ids] of written) {
        for (const id of [...ids]) await store.remove(resourceName, id);
      }
    },
  };
  return store;
}
