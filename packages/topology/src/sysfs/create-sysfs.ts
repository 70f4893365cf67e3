import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { posix } from 'node:path';
import { parseCpuList, parseCpuMask } from './cpu-list';
import { parseSysfsHex, parseSysfsInt } from './sysfs-number';

/** Options of `createSysfs`. */
export interface SysfsOptions {
  /** The directory that stands for /sys (a fixture tree or an extracted capture in tests); default "/sys". */
  readonly root?: string;
  /** The most bytes one attribute read returns; default 65536. */
  readonly maxReadBytes?: number;
}

/** Why a sysfs path could not be used. */
export type SysfsFailure = 'missing' | 'dangling-link' | 'link-loop' | 'outside-root' | 'not-readable';

/** Where a sysfs path leads: its real path (relative to the root), or why it leads nowhere usable. */
export type SysfsLocation =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: SysfsFailure; readonly message: string };

/**
 * Read-only access to a sysfs tree under an injectable root. Paths are relative to the root
 * ("bus/pci/devices/0000:3b:00.0/vendor"; a leading "/" is allowed). Every access is checked on the fully
 * resolved path: anything that resolves outside the root is refused. Nothing throws: failures read as
 * undefined, [] or false, and `locate` says why.
 */
export interface Sysfs {
  /** The root directory as given. */
  readonly root: string;
  /** Resolves a path (following links inside the root) or says why it cannot be used. */
  locate(path: string): Promise<SysfsLocation>;
  /** An attribute's content, trimmed of surrounding whitespace; undefined when unreadable. */
  read(path: string): Promise<string | undefined>;
  /** A decimal attribute ("12", "-1"); undefined when unreadable or not a number. */
  readInt(path: string): Promise<number | undefined>;
  /** A hex attribute ("0x10de"); undefined when unreadable or not hex. */
  readHex(path: string): Promise<number | undefined>;
  /** A cpulist attribute ("0-3,8"); undefined when unreadable or malformed. */
  readCpuList(path: string): Promise<number[] | undefined>;
  /** A cpumask attribute ("0000ff0f"); undefined when unreadable or malformed. */
  readCpuMask(path: string): Promise<number[] | undefined>;
  /** A symlink's raw target ("../../../bus/pci/drivers/i40e"); undefined when not a link or aimed outside the root. */
  readLink(path: string): Promise<string | undefined>;
  /** The last component of a link's target ("i40e" for a driver link); undefined when not a link. */
  readLinkName(path: string): Promise<string | undefined>;
  /** The real path, relative to the root, that a path resolves to; undefined when it cannot be used. */
  resolve(path: string): Promise<string | undefined>;
  /** A directory's entries, sorted; [] when it cannot be listed. */
  list(path: string): Promise<string[]>;
  /** Whether a path resolves to something inside the root. */
  exists(path: string): Promise<boolean>;
}

const readFlags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const maxRememberedPaths = 16384;

/**
 * Creates a sysfs reader confined to `options.root` (default "/sys").
 *
 * Cost: the API is async, but each call does its few syscalls synchronously (sysfs attributes are served
 * from kernel memory in microseconds, five times faster than a thread-pool round trip), so callers should
 * yield between devices as `enumeratePciDevices` does. A path is resolved with one realpath(3) and checked
 * against the root; directories that resolved are remembered as link-free, so reading an attribute inside
 * one (every attribute of a device after its bus link was resolved) is a plain open with O_NOFOLLOW,
 * falling back to the checked path when the attribute itself is a link. FIFOs are opened non-blocking.
 */
export function createSysfs(options: SysfsOptions = {}): Sysfs {
  const root = options.root ?? '/sys';
  const maxReadBytes = options.maxReadBytes ?? 65536;
  let realRoot: string | null | undefined;
  const getRealRoot = (): string | undefined => {
    if (realRoot === undefined) realRoot = attempt(() => realpathSync.native(root)) ?? null;
    return realRoot ?? undefined;
  };
  /** Root-relative paths that resolved to themselves: they hold no links, so their children need no realpath. */
  const linkFree = new Set<string>(['']);
  const remember = (relative: string): void => {
    if (linkFree.size >= maxRememberedPaths) linkFree.clear();
    linkFree.add(relative);
    linkFree.add('');
  };

  const relativeOf = (base: string, real: string): string | undefined => {
    if (real === base) return '';
    const prefix = base.endsWith('/') ? base : `${base}/`;
    return real.startsWith(prefix) ? real.slice(prefix.length) : undefined;
  };

  /** "/a/../b/" → "a/b"-style root-relative path: normalized against "/", so nothing climbs above the root. */
  const normalize = (path: string): string => posix.normalize(`/${path}`).slice(1).replace(/\/$/, '');
  const parentOf = (relative: string): string => {
    const parent = posix.dirname(relative);
    return parent === '.' ? '' : parent;
  };

  const locate = (path: string): SysfsLocation => {
    const base = getRealRoot();
    if (base === undefined) return failure('missing', `sysfs root ${root} does not exist`);
    const joined = posix.join(base, normalize(path));
    try {
      const real = realpathSync.native(joined);
      const relative = relativeOf(base, real);
      if (relative === undefined) {
        return failure('outside-root', `${path} resolves to ${real}, outside the sysfs root ${root}`);
      }
      remember(relative);
      return { ok: true, path: relative };
    } catch (error) {
      return describeFailure(path, joined, error);
    }
  };

  /** The real absolute path of an existing entry, or undefined. */
  const realOf = (path: string): string | undefined => {
    const relative = normalize(path);
    const base = getRealRoot();
    if (base === undefined) return undefined;
    if (linkFree.has(relative)) return posix.join(base, relative);
    const where = locate(relative);
    return where.ok ? posix.join(base, where.path) : undefined;
  };

  /** Reads a file opened with O_NOFOLLOW|O_NONBLOCK: its text, or the errno code that stopped it. */
  const readRaw = (absolute: string): { text: string } | { code: string } => {
    let fd: number | undefined;
    try {
      fd = openSync(absolute, readFlags);
      const chunks: Buffer[] = [];
      let total = 0;
      while (total < maxReadBytes) {
        const buffer = Buffer.allocUnsafe(Math.min(4096, maxReadBytes - total));
        const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
        if (bytesRead > 0) chunks.push(buffer.subarray(0, bytesRead));
        total += bytesRead;
        if (bytesRead < buffer.length) break;
      }
      return { text: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      return { code: (error as NodeJS.ErrnoException | undefined)?.code ?? 'EIO' };
    } finally {
      if (fd !== undefined) attempt(() => closeSync(fd as number));
    }
  };

  const readText = (path: string): string | undefined => {
    const relative = normalize(path);
    const base = getRealRoot();
    if (base === undefined) return undefined;
    if (linkFree.has(parentOf(relative))) {
      // Fast path: the directory holds no links; O_NOFOLLOW refuses the attribute itself being one (ELOOP).
      const direct = readRaw(posix.join(base, relative));
      if ('text' in direct) return direct.text.trim();
      if (direct.code !== 'ELOOP') return undefined;
    }
    const real = realOf(relative);
    if (real === undefined) return undefined;
    const result = readRaw(real);
    return 'text' in result ? result.text.trim() : undefined;
  };

  const parsed =
    <T>(parse: (text: string) => T | undefined) =>
    async (path: string): Promise<T | undefined> => {
      const text = readText(path);
      return text === undefined ? undefined : parse(text);
    };

  /** A link's raw target, refused (undefined) when it points outside the root even before following it. */
  const readLinkOf = (path: string): string | undefined => {
    const relative = normalize(path);
    const parent = relative === '' ? undefined : realOf(parentOf(relative));
    const base = getRealRoot();
    if (parent === undefined || base === undefined) return undefined;
    const target = attempt(() => readlinkSync(posix.join(parent, posix.basename(relative))));
    if (target === undefined) return undefined;
    return relativeOf(base, posix.resolve(parent, target)) === undefined ? undefined : target;
  };

  return {
    root,
    locate: async (path) => locate(path),
    read: async (path) => readText(path),
    readInt: parsed(parseSysfsInt),
    readHex: parsed(parseSysfsHex),
    readCpuList: parsed(parseCpuList),
    readCpuMask: parsed(parseCpuMask),
    readLink: async (path) => readLinkOf(path),
    readLinkName: async (path) => {
      const target = readLinkOf(path);
      const name = target === undefined ? undefined : posix.basename(target);
      return name === undefined || name === '' || name === '.' || name === '..' ? undefined : name;
    },
    resolve: async (path) => {
      const where = locate(path);
      return where.ok ? where.path : undefined;
    },
    list: async (path) => {
      const real = realOf(path);
      return real === undefined ? [] : (attempt(() => readdirSync(real)) ?? []).sort();
    },
    exists: async (path) => locate(path).ok,
  };
}

function attempt<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

function failure(reason: SysfsFailure, message: string): SysfsLocation {
  return { ok: false, reason, message };
}

function describeFailure(path: string, joined: string, error: unknown): SysfsLocation {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return failure('link-loop', `${path}: symbolic link loop`);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const isLink = attempt(() => lstatSync(joined).isSymbolicLink()) ?? false;
    return isLink
      ? failure('dangling-link', `${path}: dangling symbolic link`)
      : failure('missing', `${path}: does not exist`);
  }
  return failure('not-readable', `${path}: ${code ?? String(error)}`);
}
