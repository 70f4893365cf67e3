import { readFileSync } from 'node:fs';
import { bindLibcFunction, type LibcOptions } from './libc-function';

/** `MADV_PAGEOUT` (Linux ≥ 5.4): reclaim the range's pages now, as memory pressure would. */
const MADV_PAGEOUT = 21;

/** One line of `/proc/<pid>/maps`: an address range, its permissions (`r-xp`) and what is mapped (a path, `[heap]`). */
export interface Mapping {
  readonly start: bigint;
  readonly end: bigint;
  readonly permissions: string;
  readonly path: string;
}

const MAPS_LINE = /^([0-9a-f]+)-([0-9a-f]+) ([r-][w-][x-][ps]) [0-9a-f]+ [0-9a-f]+:[0-9a-f]+ \d+ *(.*)$/;

/** The mappings of a `/proc/<pid>/maps` text, in its order; a line that does not parse is skipped. */
export function parseMappings(text: string): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of text.split('\n')) {
    const match = MAPS_LINE.exec(line);
    if (match === null) continue;
    const start = BigInt(`0x${match[1]}`);
    const end = BigInt(`0x${match[2]}`);
    if (end <= start) continue;
    mappings.push({ start, end, permissions: match[3] as string, path: match[4] as string });
  }
  return mappings;
}

/**
 * Whether a mapping's pages can be read back from its file: a private mapping of a file, never writable (the
 * code and read-only data of Node's binary, the C libraries and the addons), and not a device or a memfd.
 */
export function isReadOnlyFileMapping(mapping: Mapping): boolean {
  return (
    mapping.path.startsWith('/') &&
    !mapping.path.startsWith('/dev/') &&
    !mapping.path.startsWith('/memfd:') &&
    mapping.permissions[1] === '-' &&
    mapping.permissions[3] === 'p'
  );
}

/** What one page-out did: the mappings advised and refused, and the file-backed resident memory around it. */
export interface PageOutResult {
  readonly advised: number;
  readonly refused: number;
  /** `RssFile` of `/proc/self/status` before and after, in KiB. */
  readonly residentFileKiB: { readonly before: number; readonly after: number };
}

/** Options of {@link createPageOut}. */
export interface PageOutOptions extends LibcOptions {
  /** This process's mappings; default the text of `/proc/self/maps`. */
  readonly readMaps?: () => string;
  /** This process's status; default the text of `/proc/self/status`. */
  readonly readStatus?: () => string;
}

type Madvise = (address: bigint, length: number, advice: number) => number;

const residentFileKiB = (status: string): number => Number(/^RssFile:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);

/**
 * Hands back the pages of the process's read-only file mappings — Node's binary above all — through
 * `madvise(MADV_PAGEOUT)`, bound through koffi on the first call. What a start ran once (module evaluation,
 * configuration, discovery, the compilers' first work) keeps its pages of the binary resident for the process's
 * life; an idle plugin touches a small part of them again. The kernel reclaims a page only where no other process
 * maps it (so a binary shared with other containers stays as it is) and reads it back from the file the next time
 * it is run. Returns the page-out; it does nothing, after `onUnavailable` was told why once, where it cannot work:
 * no koffi or glibc, no `/proc`, or a kernel that refuses the advice for every mapping (Linux < 5.4).
 */
export function createPageOut(options: PageOutOptions = {}): () => PageOutResult | undefined {
  const readMaps = options.readMaps ?? (() => readFileSync('/proc/self/maps', 'utf8'));
  const readStatus = options.readStatus ?? (() => readFileSync('/proc/self/status', 'utf8'));
  let madvise: Madvise | null | undefined;
  const unavailable = (reason: string): undefined => {
    madvise = null;
    options.onUnavailable?.(reason);
    return undefined;
  };
  return () => {
    if (madvise === undefined)
      madvise = bindLibcFunction<Madvise>('int madvise(uintptr_t addr, size_t length, int advice)', options);
    if (madvise === null) return undefined;
    let mappings: Mapping[];
    let before: number;
    try {
      before = residentFileKiB(readStatus());
      mappings = parseMappings(readMaps()).filter(isReadOnlyFileMapping);
    } catch (error) {
      return unavailable(`this process's mappings: ${(error as Error).message}`);
    }
    let advised = 0;
    for (const mapping of mappings)
      if (madvise(mapping.start, Number(mapping.end - mapping.start), MADV_PAGEOUT) === 0) advised += 1;
    const refused = mappings.length - advised;
    if (advised === 0 && refused > 0)
      return unavailable(`madvise(MADV_PAGEOUT) refused for all ${refused} mappings (Linux < 5.4?)`);
    return { advised, refused, residentFileKiB: { before, after: residentFileKiB(readStatus()) } };
  };
}
