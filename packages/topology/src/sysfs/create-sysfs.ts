import { constants } from 'node:fs';
import { open, readdir, readlink, realpath, lstat } from 'node:fs/promises';
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

/** Creates a sysfs reader confined to `options.root` (default "/sys"). */
export function createSysfs(options: SysfsOptions = {}): Sysfs {
  const root = options.root ?? '/sys';
  const maxReadBytes = options.maxReadBytes ?? 65536;
  let realRoot: Promise<string | undefined> | undefined;
  const getRealRoot = (): Promise<string | undefined> =>
    (realRoot ??= realpath(root).then(
      (path) => path,
      () => undefined,
    ));

  const relativeOf = (base: string, real: string): string | undefined => {
    if (real === base) return '';
    const prefix = base.endsWith('/') ? base : `${base}/`;
    return real.startsWith(prefix) ? real.slice(prefix.length) : undefined;
  };

  const lexical = (base: string, path: string): string => posix.join(base, posix.normalize(`/${path}`));

  const locate = async (path: string): Promise<SysfsLocation> => {
    const base = await getRealRoot();
    if (base === undefined) return failure('missing', `sysfs root ${root} does not exist`);
    const joined = lexical(base, path);
    try {
      const real = await realpath(joined);
      const relative = relativeOf(base, real);
      if (relative === undefined) {
        return failure('outside-root', `${path} resolves to ${real}, outside the sysfs root ${root}`);
      }
      return { ok: true, path: relative };
    } catch (error) {
      return describeFailure(path, joined, error);
    }
  };

  /** The real absolute path of an existing entry, or undefined. */
  const realOf = async (path: string): Promise<string | undefined> => {
    const where = await locate(path);
    const base = await getRealRoot();
    return where.ok && base !== undefined ? posix.join(base, where.path) : undefined;
  };

  const readRaw = async (absolute: string): Promise<string | undefined> => {
    let handle;
    try {
      handle = await open(absolute, readFlags);
      const chunks: Buffer[] = [];
      let total = 0;
      while (total < maxReadBytes) {
        const buffer = Buffer.alloc(Math.min(4096, maxReadBytes - total));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead <= 0) break;
        chunks.push(buffer.subarray(0, bytesRead));
        total += bytesRead;
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch {
      return undefined;
    } finally {
      await handle?.close().catch(() => undefined);
    }
  };

  const read = async (path: string): Promise<string | undefined> => {
    const real = await realOf(path);
    if (real === undefined) return undefined;
    const text = await readRaw(real);
    return text?.trim();
  };

  const parsed =
    <T>(parse: (text: string) => T | undefined) =>
    async (path: string): Promise<T | undefined> => {
      const text = await read(path);
      return text === undefined ? undefined : parse(text);
    };

  /** A link's raw target, refused (undefined) when it points outside the root even before following it. */
  const readLinkOf = async (path: string): Promise<string | undefined> => {
    const normalized = posix.normalize(`/${path}`);
    const parent = await realOf(posix.dirname(normalized));
    const base = await getRealRoot();
    if (parent === undefined || base === undefined) return undefined;
    try {
      const target = await readlink(posix.join(parent, posix.basename(normalized)));
      return relativeOf(base, posix.resolve(parent, target)) === undefined ? undefined : target;
    } catch {
      return undefined;
    }
  };

  return {
    root,
    locate,
    read,
    readInt: parsed(parseSysfsInt),
    readHex: parsed(parseSysfsHex),
    readCpuList: parsed(parseCpuList),
    readCpuMask: parsed(parseCpuMask),
    readLink: readLinkOf,
    readLinkName: async (path) => {
      const target = await readLinkOf(path);
      const name = target === undefined ? undefined : posix.basename(target);
      return name === undefined || name === '' || name === '.' || name === '..' ? undefined : name;
    },
    resolve: async (path) => {
      const where = await locate(path);
      return where.ok ? where.path : undefined;
    },
    list: async (path) => {
      const real = await realOf(path);
      if (real === undefined) return [];
      try {
        return (await readdir(real)).sort();
      } catch {
        return [];
      }
    },
    exists: async (path) => (await locate(path)).ok,
  };
}

function failure(reason: SysfsFailure, message: string): SysfsLocation {
  return { ok: false, reason, message };
}

async function describeFailure(path: string, joined: string, error: unknown): Promise<SysfsLocation> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return failure('link-loop', `${path}: symbolic link loop`);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const isLink = await lstat(joined).then(
      (stats) => stats.isSymbolicLink(),
      () => false,
    );
    return isLink
      ? failure('dangling-link', `${path}: dangling symbolic link`)
      : failure('missing', `${path}: does not exist`);
  }
  return failure('not-readable', `${path}: ${code ?? String(error)}`);
}
