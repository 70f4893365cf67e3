import { closeSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { posix } from 'node:path';
import type { Host } from '@kdp/topology';
import type { ChangeProbe, ProbePaths } from './define-plugin';

/** The most bytes of one probed file that are compared (sysfs attributes are one page at most). */
const READ_LIMIT = 4096;
const buffer = Buffer.alloc(READ_LIMIT);

/** What a missing entry reads as (the error code a reader would have thrown). */
const MISSING = '\u0001ENOENT';

/** One probed path: how it is read, where (undefined: outside its root), and whether it was missing last time. */
interface ProbedPath {
  readonly reader: (path: string) => string;
  readonly local: string | undefined;
  missing: boolean;
}

/** A probe's paths made local, for one host: a plugin reads the same probe every second until its next scan. */
const prepared = new WeakMap<ChangeProbe, { readonly host: Host; readonly paths: readonly ProbedPath[] }>();

/**
 * Reads a change probe: every listed directory's entries, every file's contents, every link's target, in order,
 * into one string that is equal for two readings exactly when nothing probed changed. Synchronous on purpose: a
 * few dozen small kernfs reads cost less than as many thread-pool round trips. Paths stay inside their root
 * (relative paths are normalized under it; /dev paths go through the devfs mapping); what is missing reads as a
 * marker, so a vanishing file is a change too. Nothing throws. A probe's paths are made local once, and a path
 * that was missing is looked up before it is read again, so an idle plugin's probe neither joins paths nor
 * builds errors every second (measured: 40 % of the idle SR-IOV plugin's allocation).
 */
export function readChangeProbe(host: Host, probe: ChangeProbe): string {
  let known = prepared.get(probe);
  if (known?.host !== host) {
    known = { host, paths: prepare(host, probe) };
    prepared.set(probe, known);
  }
  const parts: string[] = [];
  for (const path of known.paths) parts.push(readPath(path));
  return parts.join('\u0000');
}

function prepare(host: Host, probe: ChangeProbe): ProbedPath[] {
  const inside = (root: string) => (path: string) => posix.join(root, posix.normalize(`/${path}`));
  return [
    ...paths(probe.sysfs, inside(host.sysfs.root)),
    ...paths(probe.procfs, inside(host.procfs.root)),
    ...paths(probe.devfs, (path) => host.devfs.localPath(path)),
  ];
}

function paths(list: ProbePaths | undefined, local: (path: string) => string | undefined): ProbedPath[] {
  if (list === undefined) return [];
  const each = (reader: ProbedPath['reader']) => (path: string) => ({
    reader,
    local: local(path),
    missing: false,
  });
  return [
    ...(list.list ?? []).map(each((at) => readdirSync(at).join('/'))),
    ...(list.read ?? []).map(each(readSmallFile)),
    ...(list.links ?? []).map(each((at) => readlinkSync(at))),
  ];
}

function readPath(path: ProbedPath): string {
  if (path.local === undefined) return '\u0001outside';
  try {
    if (path.missing && lstatSync(path.local, { throwIfNoEntry: false }) === undefined) return MISSING;
    const text = path.reader(path.local);
    path.missing = false;
    return text;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    path.missing = code === 'ENOENT';
    return `\u0001${code}`;
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
