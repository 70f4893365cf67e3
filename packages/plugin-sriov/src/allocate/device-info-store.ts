import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deviceInfoFileName } from './device-info';

/** Writes and removes the Multus device-info files of allocated devices. */
export interface DeviceInfoStore {
  readonly dir: string;
  /** Replaces the file of one device (delete, then create 0444, as upstream). */
  write(resourceName: string, deviceId: string, json: string): Promise<void>;
  /** Removes the files of every device not in `keep` (resource name → device IDs); returns them as `resource id`. */
  prune(keep: ReadonlyMap<string, ReadonlySet<string>>): Promise<string[]>;
  /** Removes every file this store wrote (shutdown, as upstream cleans its pools on stop). */
  removeAll(): Promise<void>;
}

/** Creates a store over `dir` (created 0700 when missing). */
export function createDeviceInfoStore(dir: string): DeviceInfoStore {
  const written = new Map<string, Set<string>>();
  let sequence = 0;
  const remove = async (resourceName: string, id: string): Promise<void> => {
    await rm(join(dir, deviceInfoFileName(resourceName, id)), { force: true });
    written.get(resourceName)?.delete(id);
  };
  return {
    dir,
    async write(resourceName, deviceId, json) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = deviceInfoFileName(resourceName, deviceId);
      // Upstream deletes, then creates the file 0444. A temp file renamed over it gives readers the same
      // result, and two Allocates of one device (several containers) cannot collide.
      const temp = join(dir, `.${name}.${process.pid}.${(sequence += 1)}`);
      try {
        await writeFile(temp, json, { mode: 0o444, flag: 'wx' });
        await rename(temp, join(dir, name));
      } finally {
        await rm(temp, { force: true });
      }
      let ids = written.get(resourceName);
      if (ids === undefined) written.set(resourceName, (ids = new Set()));
      ids.add(deviceId);
    },
    async prune(keep) {
      const gone: string[] = [];
      for (const [resourceName, ids] of written) {
        for (const id of [...ids]) {
          if (keep.get(resourceName)?.has(id) === true) continue;
          await remove(resourceName, id);
          gone.push(`${resourceName} ${id}`);
        }
      }
      return gone;
    },
    async removeAll() {
      for (const [resourceName, ids] of written) for (const id of [...ids]) await remove(resourceName, id);
    },
  };
}
