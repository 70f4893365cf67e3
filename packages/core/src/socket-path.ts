import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { UnixSocketPathMaxBytes } from '@kdp/api';

/** Hex digits of the resource name's hash that replace the cut tail of a shortened socket name. */
const HASH_HEX_DIGITS = 8;
/** The fewest characters of the resource name a shortened socket name keeps, so operators still see whose it is. */
const MIN_KEPT_CHARS = 8;

/** Turns a resource name into a file-name-safe prefix: `nvidia.com/gpu` → `nvidia.com_gpu`. */
export function sanitizeResourceName(resource: string): string {
  return resource.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The socket file name of one plugin instance: `<sanitized-resource>-<instance>.sock`. */
export function socketFileName(resource: string, instance: string): string {
  return `${sanitizeResourceName(resource)}-${instance}.sock`;
}

/**
 * The full socket path in `dir`. When `<sanitized-resource>-<instance>.sock` would make the path longer than the
 * 107 bytes a unix socket path may have (long FPGA AFU resource names do), the resource part is cut and ends in
 * `_` plus a hash of the whole name, so the name stays unique and the same for every instance in that directory.
 * Throws, naming the path and its length, when even that does not fit.
 */
export function socketPath(dir: string, resource: string, instance: string): string {
  const path = join(dir, socketFileName(resource, instance));
  const bytes = Buffer.byteLength(path);
  if (bytes <= UnixSocketPathMaxBytes) return path;
  const suffix = `-${instance}.sock`;
  const budget = UnixSocketPathMaxBytes - Buffer.byteLength(join(dir, suffix)) - HASH_HEX_DIGITS - 1;
  if (budget >= MIN_KEPT_CHARS) {
    const hash = createHash('sha256').update(resource).digest('hex').slice(0, HASH_HEX_DIGITS);
    return join(dir, `${sanitizeResourceName(resource).slice(0, budget)}_${hash}${suffix}`);
  }
  throw new Error(
    `socket path ${path} is ${bytes} bytes long; unix socket paths may have at most ${UnixSocketPathMaxBytes} ` +
      `bytes: use a shorter device-plugin directory or instance ID`,
  );
}

/** The part of a socket path's file name that every instance of its resource shares: `nvidia.com_gpu-`. */
export function socketNamePrefix(path: string): string {
  const name = basename(path);
  return name.slice(0, name.lastIndexOf('-') + 1);
}
