import { stat } from 'node:fs/promises';
import { join, posix } from 'node:path';

/**
 * Whether a host device node (`/dev/dfl-port.0`) exists under `devRoot` (the `--dev-root` flag). Only paths
 * under /dev are looked up; `..` cannot climb out of the root.
 */
export async function devNodeExists(devRoot: string, hostPath: string): Promise<boolean> {
  const normalized = posix.normalize(hostPath);
  if (!normalized.startsWith('/dev/')) return false;
  const relative = normalized.slice('/dev/'.length);
  return stat(join(devRoot, relative)).then(
    () => true,
    () => false,
  );
}
