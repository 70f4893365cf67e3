import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { UnixSocketPathMaxBytes } from '@kdp/api';

/** The kubelet's default directory of DRA plugin sockets (`<dir>/<driver>/dra.sock`). */
export const DRA_PLUGINS_DIR = '/var/lib/kubelet/plugins';

const HASH_HEX_DIGITS = 16;

/**
 * The plugin-watcher registration socket of a driver: `<registryDir>/<driver>-reg.sock`, or with a pod UID (rolling
 * update, several instances at once) `<registryDir>/<driver>-<podUid>-reg.sock`. When that path is longer than a
 * unix socket path may be, the name becomes `<driver>-<hash>-reg.sock` (the hash of the full name, so it stays
 * unique per pod) and, failing that too, throws naming the path.
 */
export function registrationSocketPath(registryDir: string, driver: string, podUid?: string): string {
  const name = podUid ? `${driver}-${podUid}` : driver;
  return fitSocketPath(registryDir, name, driver, '-reg.sock');
}

/**
 * The DRA gRPC socket of a driver: `<draPluginsDir>/<driver>/dra.sock`, or `dra-<podUid>.sock` in rolling-update
 * mode (two instances cannot share one endpoint). Shortened with a hash like {@link registrationSocketPath}.
 */
export function draSocketPath(draPluginsDir: string, driver: string, podUid?: string): string {
  const dir = join(draPluginsDir, driver);
  return podUid ? fitSocketPath(dir, `dra-${podUid}`, 'dra', '.sock') : checkLength(join(dir, 'dra.sock'));
}

function fitSocketPath(dir: string, name: string, keep: string, suffix: string): string {
  const path = join(dir, `${name}${suffix}`);
  if (Buffer.byteLength(path) <= UnixSocketPathMaxBytes) return path;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_HEX_DIGITS);
  const budget = UnixSocketPathMaxBytes - Buffer.byteLength(join(dir, `-${hash}${suffix}`));
  return checkLength(join(dir, `${keep.slice(0, Math.max(0, budget))}-${hash}${suffix}`));
}

function checkLength(path: string): string {
  const bytes = Buffer.byteLength(path);
  if (bytes > UnixSocketPathMaxBytes)
    throw new Error(
      `socket path ${path} is ${bytes} bytes long; unix socket paths may have at most ` +
        `${UnixSocketPathMaxBytes} bytes: use a shorter directory`,
    );
  return path;
}
