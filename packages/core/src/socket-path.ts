import { join } from 'node:path';
import { UnixSocketPathMaxBytes } from '@kdp/api';

/** Turns a resource name into a file-name-safe prefix: `nvidia.com/gpu` → `nvidia.com_gpu`. */
export function sanitizeResourceName(resource: string): string {
  return resource.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The socket file name of one plugin instance: `<sanitized-resource>-<instance>.sock`. */
export function socketFileName(resource: string, instance: string): string {
  return `${sanitizeResourceName(resource)}-${instance}.sock`;
}

/**
 * The full socket path in `dir`; throws when it exceeds the 107 bytes a unix socket path may have,
 * naming the path and its length so the operator knows what to shorten.
 */
export function socketPath(dir: string, resource: string, instance: string): string {
  const path = join(dir, socketFileName(resource, instance));
  const bytes = Buffer.byteLength(path);
  if (bytes > UnixSocketPathMaxBytes) {
    throw new Error(
      `socket path ${path} is ${bytes} bytes long; unix socket paths may have at most ${UnixSocketPathMaxBytes} ` +
        `bytes: use a shorter device-plugin directory, resource name or instance ID`,
    );
  }
  return path;
}
