import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { NVML_LIBRARY } from './nvml-library';

/** Where NVIDIA's plugin looks for libnvidia-ml.so.1 under a driver root (cmd/nvidia-device-plugin/root.go). */
const LIBRARY_DIRS = [
  '/usr/lib64',
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/lib64',
  '/lib/x86_64-linux-gnu',
  '/lib/aarch64-linux-gnu',
];

/**
 * The NVML library under the driver root mounted in this container (NVIDIA's `tryResolveLibrary`): the first of
 * NVIDIA's library directories that holds `libnvidia-ml.so.1`, links resolved, and only where the resolved file
 * stays inside the root (a link leaving it is skipped). Else the bare name, for the dynamic loader.
 */
export function resolveNvmlLibrary(containerDriverRoot: string): string {
  if (containerDriverRoot === '/' || !posix.isAbsolute(containerDriverRoot)) return NVML_LIBRARY;
  let root: string;
  try {
    root = realpathSync(containerDriverRoot);
  } catch {
    return NVML_LIBRARY;
  }
  for (const dir of LIBRARY_DIRS) {
    try {
      const resolved = realpathSync(posix.join(root, dir, NVML_LIBRARY));
      if (resolved.startsWith(`${root}/`)) return resolved;
    } catch {
      // not there: the next directory
    }
  }
  return NVML_LIBRARY;
}
