import { execFileSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { posix } from 'node:path';
import type * as FastCheck from 'fast-check';
import { SENTINEL_ENTRIES, type EscapeSentinel, type SentinelEntry } from './escape-sentinel';

/** The fast-check module, passed in so that `@kdp/topology/testing` needs no fast-check at run time. */
export type FastCheckModule = typeof FastCheck.default;

/** What an entry of a fixture tree is (links not followed). */
export type TreeEntryKind = 'file' | 'directory' | 'link' | 'other';

/** One entry of a fixture tree, by its path relative to the tree's base (`sys/bus/pci/devices/0000:03:00.0`). */
export interface TreeEntry {
  readonly path: string;
  readonly kind: TreeEntryKind;
}

/** Where a corrupting symbolic link points. */
export type CorruptLinkTarget =
  /** A name that does not exist, beside the link. */
  | { readonly to: 'dangling' }
  /** The link itself (ELOOP). */
  | { readonly to: 'loop' }
  /** A directory above the link, inside its root (`..`, `../..`): a walker that follows links never ends. */
  | { readonly to: 'ancestor'; readonly levels: number }
  /** Another entry of the tree, by a relative target. */
  | { readonly to: 'entry'; readonly path: string }
  /** An entry of the escape sentinel, outside every root, by an absolute or a climbing relative target. */
  | { readonly to: 'sentinel'; readonly entry: SentinelEntry; readonly absolute: boolean };

/** What takes an entry's place. */
export type TreeReplacement =
  | { readonly kind: 'delete' }
  /** A regular file with these bytes (empty, random, huge or negative numbers, non-UTF-8, over 64 KiB). */
  | { readonly kind: 'file'; readonly content: Uint8Array }
  /** A sparse regular file of this many bytes (gigabytes cost nothing until read). */
  | { readonly kind: 'sparse-file'; readonly bytes: number }
  /** A FIFO nobody writes to: a blocking open or read never returns. */
  | { readonly kind: 'fifo' }
  /** An empty directory. */
  | { readonly kind: 'directory' }
  | { readonly kind: 'link'; readonly target: CorruptLinkTarget };

/** One corruption: the entry at `path` (relative to the base) is replaced. */
export interface TreeCorruption {
  readonly path: string;
  readonly replacement: TreeReplacement;
}

/** Options of {@link treeCorruptions}. */
export interface TreeCorruptionsOptions {
  /** At most this many corruptions per tree (default 4, at least 1). */
  readonly maxCorruptions?: number;
}

/**
 * The entries under `base` (links not followed), sorted; with `roots`, only those under these top-level
 * directories (`['sys', 'dev']`), the roots themselves excluded.
 */
export function listTreeEntries(base: string, roots?: readonly string[]): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const visit = (relative: string): void => {
    for (const name of readdirSync(posix.join(base, relative)).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const info = lstatSync(posix.join(base, path));
      const kind: TreeEntryKind = info.isSymbolicLink()
        ? 'link'
        : info.isDirectory()
          ? 'directory'
          : info.isFile()
            ? 'file'
            : 'other';
      entries.push({ path, kind });
      if (kind === 'directory') visit(path);
    }
  };
  for (const root of roots ?? ['']) visit(root);
  return entries;
}

/** Numbers and near-numbers that parsers get wrong: huge, negative, non-decimal, not finite, padded. */
const NUMBERISH = [
  '-1',
  '-2147483649',
  '4294967296',
  '18446744073709551616',
  '9007199254740993',
  '1e308',
  '-1e308',
  'NaN',
  'Infinity',
  '0x',
  '0xffffffffffffffffffffffffffff',
  '-0x10de',
  '1.5',
  ' 12 34',
  '0-4294967295',
  '0-99999999',
  '4294967295:4294967295',
  'c 999999999999:1',
  '0000:zz:00.0',
  '\u0000',
] as const;

/** The arbitrary file contents of {@link treeCorruptions}. */
function contents(fc: FastCheckModule): FastCheck.Arbitrary<Uint8Array> {
  const text = (s: string): Uint8Array => Buffer.from(s);
  return fc.oneof(
    fc.constant(new Uint8Array()),
    fc.constantFrom(...NUMBERISH).map((s) => text(`${s}\n`)),
    fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map((n) => text(`${n}\n`)),
    fc.uint8Array({ maxLength: 64 }),
    fc
      .uint8Array({ maxLength: 16 })
      .map((bytes) => Uint8Array.from([0xff, 0xfe, 0xc3, 0x28, ...bytes, 0x80])),
    fc.string({ unit: 'grapheme', maxLength: 32 }).map(text),
    fc.constantFrom('x', '9').map((c) => text(c.repeat(70_000))),
  );
}

/** The arbitrary link targets of {@link treeCorruptions}, for a link at `path` among `entries`. */
function linkTargets(
  fc: FastCheckModule,
  entries: readonly TreeEntry[],
): FastCheck.Arbitrary<CorruptLinkTarget> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        to: fc.constant('sentinel' as const),
        entry: fc.constantFrom(...SENTINEL_ENTRIES),
        absolute: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ to: 'dangling' as const }) },
    { weight: 1, arbitrary: fc.constant({ to: 'loop' as const }) },
    {
      weight: 1,
      arbitrary: fc.record({ to: fc.constant('ancestor' as const), levels: fc.integer({ min: 1, max: 8 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        to: fc.constant('entry' as const),
        path: fc.constantFrom(...entries.map((e) => e.path)),
      }),
    },
  );
}

/**
 * A fast-check arbitrary of corruptions for a tree with these entries (from {@link listTreeEntries}): 1 to
 * `maxCorruptions` entries, each deleted or replaced by garbage content, a sparse 3 GiB file, a FIFO, a
 * directory, or a dangling, looping, climbing, misdirected or escaping link. Shrinks towards fewer corruptions.
 */
export function treeCorruptions(
  fc: FastCheckModule,
  entries: readonly TreeEntry[],
  options: TreeCorruptionsOptions = {},
): FastCheck.Arbitrary<TreeCorruption[]> {
  if (entries.length === 0) throw new Error('treeCorruptions: the tree has no entries');
  const replacement: FastCheck.Arbitrary<TreeReplacement> = fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
    { weight: 5, arbitrary: contents(fc).map((content) => ({ kind: 'file' as const, content })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'sparse-file' as const, bytes: 3 * 2 ** 30 }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'fifo' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'directory' as const }) },
    { weight: 6, arbitrary: linkTargets(fc, entries).map((target) => ({ kind: 'link' as const, target })) },
  );
  // Half the picks among links and directories: the enumeration links (bus/pci/devices/X, class/C/X) and device
  // directories are few among the attribute files, and where an escaping or looping link does most harm.
  const structural = entries.filter((e) => e.kind === 'link' || e.kind === 'directory').map((e) => e.path);
  const any = fc.constantFrom(...entries.map((e) => e.path));
  const path = structural.length > 0 ? fc.oneof(any, fc.constantFrom(...structural)) : any;
  const corruption = fc.record({ path, replacement });
  return fc.array(corruption, { minLength: 1, maxLength: Math.max(1, options.maxCorruptions ?? 4) });
}

/**
 * Applies corruptions to the tree under `base`, in order, and returns those applied: one whose entry is gone
 * or lies below something that is no longer a real directory (an earlier corruption replaced a parent) is
 * skipped, so nothing is ever written through a link. Escaping links point at `sentinel`'s entries.
 */
export function corruptTree(
  base: string,
  corruptions: readonly TreeCorruption[],
  sentinel: EscapeSentinel,
): TreeCorruption[] {
  const applied: TreeCorruption[] = [];
  for (const corruption of corruptions) {
    const parts = posix.normalize(corruption.path).split('/');
    if (parts.length === 0 || parts.includes('..') || parts[0] === '') continue;
    if (!realDirectoryChain(base, parts.slice(0, -1))) continue;
    const path = posix.join(base, ...parts);
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) continue;
    rmSync(path, { recursive: true, force: true });
    replace(path, parts, corruption.replacement, sentinel);
    applied.push(corruption);
  }
  return applied;
}

/**
 * Undoes corruptions applied to a copy of `template` (both tree bases): each corrupted entry is deleted and
 * copied back from the template (links as links), outermost first, one below another corrupted entry being
 * restored with it, so that costs a few entries instead of a whole tree and never goes through a link.
 */
export function restoreTree(base: string, template: string, corruptions: readonly TreeCorruption[]): void {
  const paths = [...new Set(corruptions.map((c) => posix.normalize(c.path)))].filter(
    (path) => !path.startsWith('..') && !posix.isAbsolute(path),
  );
  const outermost = paths.filter((path) => !paths.some((other) => path.startsWith(`${other}/`)));
  for (const path of outermost) {
    rmSync(posix.join(base, path), { recursive: true, force: true });
    if (lstatSync(posix.join(template, path), { throwIfNoEntry: false }) !== undefined)
      cpSync(posix.join(template, path), posix.join(base, path), { recursive: true, verbatimSymlinks: true });
  }
}

/** True when every directory from `base` along `parts` exists and is a directory, not a link. */
function realDirectoryChain(base: string, parts: readonly string[]): boolean {
  let dir = base;
  for (const part of parts) {
    dir = posix.join(dir, part);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return false;
  }
  return true;
}

function replace(
  path: string,
  parts: readonly string[],
  replacement: TreeReplacement,
  sentinel: EscapeSentinel,
): void {
  switch (replacement.kind) {
    case 'delete':
      return;
    case 'file':
      return writeFileSync(path, replacement.content);
    case 'sparse-file': {
      const fd = openSync(path, 'w');
      try {
        ftruncateSync(fd, replacement.bytes);
      } finally {
        closeSync(fd);
      }
      return;
    }
    case 'fifo':
      execFileSync('mkfifo', [path]);
      return;
    case 'directory':
      mkdirSync(path);
      return;
    case 'link':
      symlinkSync(linkTarget(path, parts, replacement.target, sentinel), path);
  }
}

function linkTarget(
  path: string,
  parts: readonly string[],
  target: CorruptLinkTarget,
  sentinel: EscapeSentinel,
): string {
  const name = parts[parts.length - 1] as string;
  switch (target.to) {
    case 'dangling':
      return `${name}.missing`;
    case 'loop':
      return name;
    case 'ancestor': {
      // parts = [root, …, name]: the link's directory is parts.length - 2 levels below the root.
      const depth = parts.length - 2;
      return depth < 1
        ? name
        : Array.from({ length: 1 + ((target.levels - 1) % depth) }, () => '..').join('/');
    }
    case 'entry':
      return posix.relative(posix.dirname(parts.join('/')), target.path) || '.';
    case 'sentinel': {
      const to = sentinel.path(target.entry);
      return target.absolute ? to : posix.relative(posix.dirname(path), to);
    }
  }
}
