import { constants } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { globToRegExp, hasGlobSyntax } from './glob-pattern';

/** What {@link Devfs.node} found at a `/dev` path: a usable device node, or why not. */
export type DevNodeState =
  | { readonly ok: true; readonly kind: 'char' | 'placeholder' }
  | { readonly ok: false; readonly reason: string };

/**
 * Read-only access to a `/dev` tree under an injectable root (`--dev-root`). Every argument is a host path
 * (`/dev/nvidia0`), which is what a plugin hands to the kubelet; the root only says where to look. Every
 * lookup is confined: a path is resolved with realpath and refused when it leaves the root (a symbolic link
 * inside /dev that points into /dev is fine, one that points elsewhere is not). Nothing throws.
 */
export interface Devfs {
  /** The root directory as given. */
  readonly root: string;
  /**
   * The one device-node check every plugin uses: `ok` when the host path lies under /dev, resolves inside the
   * root, and is a character device — or a regular file of at most 64 bytes holding `c MAJOR:MINOR`, which is
   * how kdp-replay captures and test fixtures stand for a node. The node itself is never opened.
   */
  node(hostPath: string): Promise<DevNodeState>;
  /** Whether {@link Devfs.node} says `ok`. */
  hasNode(hostPath: string): Promise<boolean>;
  /**
   * Expands a glob of host paths (`/dev/ttyUSB*`, `/dev/snd/*`) one segment at a time (`*` never crosses `/`,
   * `.` and `..` never match); returns the entries of any type that exist inside the root, as host paths,
   * sorted naturally. [] when nothing matches or the pattern is not under /dev.
   */
  glob(pattern: string): Promise<string[]>;
  /** The names in a /dev directory (`/dev/dri`), sorted; [] when it is missing or leaves the root. */
  list(hostDir: string): Promise<string[]>;
  /** The directory on this machine that stands for a host path under /dev (for watching); undefined outside /dev. */
  localPath(hostPath: string): string | undefined;
}

/** Placeholders that kdp-replay.sh and the fixtures write for device nodes: "c MAJOR:MINOR". */
const PLACEHOLDER = /^c \d{1,10}:\d{1,10}\s*$/;

/** Creates the confined `/dev` reader for `root` (default `/dev`). */
export function createDevfs(root = '/dev'): Devfs {
  let realRoot: Promise<string | undefined> | undefined;
  const base = (): Promise<string | undefined> =>
    (realRoot ??= realpath(root).then(
      (real) => real,
      () => undefined,
    ));

  /** "/dev/dri/card0" → "dri/card0"; undefined outside /dev or for /dev itself when `allowRoot` is false. */
  const relativeOf = (hostPath: string, allowRoot = false): string | undefined => {
    const normalized = posix.normalize(hostPath);
    if (normalized === '/dev' || normalized === '/dev/') return allowRoot ? '' : undefined;
    if (!normalized.startsWith('/dev/')) return undefined;
    const relative = normalized.slice('/dev/'.length).replace(/\/$/, '');
    return relative === '' || relative.split('/').includes('..') ? undefined : relative;
  };

  /** The real path of a host path, when it exists and stays inside the root. */
  const resolveInside = async (relative: string): Promise<string | undefined> => {
    const top = await base();
    if (top === undefined) return undefined;
    const real = await realpath(posix.join(top, relative)).catch(() => undefined);
    if (real === undefined) return undefined;
    return real === top || real.startsWith(top.endsWith('/') ? top : `${top}/`) ? real : undefined;
  };

  const isPlaceholder = async (path: string): Promise<boolean> => {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
    if (handle === undefined) return false;
    try {
      const buffer = Buffer.alloc(64);
      const { bytesRead } = await handle.read(buffer, 0, 64, 0);
      return PLACEHOLDER.test(buffer.subarray(0, bytesRead).toString('latin1'));
    } catch {
      return false;
    } finally {
      await handle.close().catch(() => undefined);
    }
  };

  const node = async (hostPath: string): Promise<DevNodeState> => {
    const relative = relativeOf(hostPath);
    if (relative === undefined) return { ok: false, reason: `${hostPath}: not under /dev` };
    const top = await base();
    const exists = top !== undefined && (await stat(posix.join(top, relative)).catch(() => undefined));
    if (!exists) return { ok: false, reason: `${hostPath} is missing` };
    const real = await resolveInside(relative);
    if (real === undefined) return { ok: false, reason: `${hostPath} leads outside the /dev root` };
    const info = await stat(real).catch(() => undefined);
    if (info?.isCharacterDevice()) return { ok: true, kind: 'char' };
    if (info?.isFile() && info.size <= 64 && (await isPlaceholder(real)))
      return { ok: true, kind: 'placeholder' };
    return { ok: false, reason: `${hostPath} is not a character device` };
  };

  const list = async (hostDir: string): Promise<string[]> => {
    const relative = relativeOf(hostDir, true);
    if (relative === undefined) return [];
    const real = await resolveInside(relative);
    if (real === undefined) return [];
    return (await readdir(real).catch(() => [] as string[])).sort();
  };

  const glob = async (pattern: string): Promise<string[]> => {
    const relative = relativeOf(pattern);
    if (relative === undefined || !pattern.startsWith('/dev/')) return [];
    const segments = relative.split('/').filter((segment) => segment !== '');
    if (segments.some((segment) => segment === '.')) return [];
    let current: string[] = [''];
    for (const segment of segments) {
      const next: string[] = [];
      if (!hasGlobSyntax(segment)) {
        for (const dir of current) next.push(posix.join(dir, segment));
      } else {
        const re = globToRegExp(segment, { separator: '/' });
        for (const dir of current) {
          for (const entry of await list(posix.join('/dev', dir)))
            if (re.test(entry)) next.push(posix.join(dir, entry));
        }
      }
      current = next;
      if (current.length === 0) return [];
    }
    const found = await Promise.all(
      current.map(async (rel) => ((await resolveInside(rel)) ? rel : undefined)),
    );
    return found
      .filter((rel): rel is string => rel !== undefined)
      .map((rel) => `/dev/${rel}`)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  };

  return {
    root,
    node,
    hasNode: async (hostPath) => (await node(hostPath)).ok,
    glob,
    list,
    localPath: (hostPath) => {
      const relative = relativeOf(hostPath, true);
      return relative === undefined ? undefined : posix.join(root, relative);
    },
  };
}
