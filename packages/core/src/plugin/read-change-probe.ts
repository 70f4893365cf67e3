import { closeSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { posix } from 'node:path';
import type { Host } from '@kdp/topology';
import type { ChangeProbe, ProbePaths } from './define-plugin';

/** The most bytes of one probed file that are compared (sysfs attributes are one page at most). */
const READ_LIMIT = 4096;
const buffer = Buffer.alloc(READ_LIMIT);

/**
 * Reads a change probe: every listed directory's entries, every file's contents, every link's target, in order,
 * into one string that is equal for two readings exactly when nothing probed changed. Synchronous on purpose: a
 * few dozen small kernfs reads cost less than as many thread-pool round trips. Paths stay inside their root
 * (relative paths are normalized under it; /dev paths go through the devfs mapping); what is missing reads as a
 * marker, so a vanishing file is a change too. Nothing throws.
 */
export function readChangeProbe(host: Host, probe: ChangeProbe): string {
  const parts: string[] = [];
  const inside = (root: string) => (path: string) => posix.join(root, posix.normalize(`/${path}`));
  read(parts, probe.sysfs, inside(host.sysfs.root));
  read(parts, probe.procfs, inside(host.procfs.root));
  read(parts, probe.devfs, (path) => host.devfs.localPath(path));
  return parts.join('\u0000');
}

function read(
  parts: string[],
  paths: ProbePaths | undefined,
  local: (path: string) => string | undefined,
): void {
  if (paths === undefined) return;
  for (const path of paths.list ?? []) parts.push(attempt(local(path), (at) => readdirSync(at).join('/')));
  for (const path of paths.read ?? []) parts.push(attempt(local(path), readSmallFile));
  for (const path of paths.links ?? []) parts.push(attempt(local(path), (at) => readlinkSync(at)));
}

function attempt(path: string | undefined, reader: (path: string) => string): string {
  if (path === undefined) return '\u0001outside';
  try {
    return reader(path);
  } catch (error) {
    return `\u0001${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

function readSmallFile(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const bytes = readSync(fd, buffer, 0, READ_LIMIT, 0);
    return buffer.toString('latin1', 0, bytes);
  } finally {
    closeSync(fd);
  }
}
