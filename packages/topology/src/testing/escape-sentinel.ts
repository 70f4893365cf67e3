import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { changedPaths, snapshotTree } from './snapshot-tree';
import { createTempDir } from './temp-dir';

/** The entries of an escape sentinel that corrupting links may point at. */
export type SentinelEntry = 'directory' | 'bait-directory' | 'bait-file' | 'fifo';

/** Every {@link SentinelEntry}, in a fixed order. */
export const SENTINEL_ENTRIES: readonly SentinelEntry[] = [
  'directory',
  'bait-directory',
  'bait-file',
  'fifo',
];

/**
 * A directory outside every root that a confined reader must never touch. What only reading or listing it
 * reveals (file contents, names inside its directories) carries a unique marker, so anything read through an
 * escaping link shows up in output; the link targets themselves do not, as a diagnostic may name where a link
 * leads. It holds a FIFO pre-filled with bytes that only a reader can take away (so a read that leaves no trace
 * in output is caught too; a blocking reader would hang on it once the bytes are gone).
 */
export interface EscapeSentinel {
  /** The sentinel directory (under os.tmpdir(), beside but outside the fixture trees). */
  readonly dir: string;
  /** The unique string in the sentinel's contents and in the names inside its directories. */
  readonly marker: string;
  /** The absolute path of one of its entries. */
  path(entry: SentinelEntry): string;
  /** Whether `text` holds the marker: something read or listed inside the sentinel. */
  leaked(text: string): boolean;
  /** What happened to the sentinel since it was made or last checked (bytes read, entries written); re-arms it. */
  problems(): string[];
  /** Closes the FIFO and deletes the directory. */
  remove(): void;
}

/** Attribute names that sysfs, procfs and /dev readers look for: a reader that follows a link here reads the marker. */
const BAIT_FILES = [
  'vendor',
  'device',
  'class',
  'dev',
  'uevent',
  'serial',
  'product',
  'manufacturer',
  'numa_node',
  'local_cpulist',
  'cpulist',
  'information',
  'idVendor',
  'idProduct',
  'afu_id',
  'interface_id',
  'node_guid',
  'state',
  'name',
] as const;

/** Creates an escape sentinel; `remove()` it when done. */
export function createEscapeSentinel(): EscapeSentinel {
  const temp = createTempDir('kdp-sentinel-');
  const dir = temp.path;
  const marker = `KDPSENTINEL${dir.slice(-6).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const paths: Record<SentinelEntry, string> = {
    directory: dir,
    'bait-directory': join(dir, 'bait'),
    'bait-file': join(dir, 'bait.txt'),
    fifo: join(dir, 'bait.fifo'),
  };
  mkdirSync(join(dir, marker));
  mkdirSync(join(paths['bait-directory'], marker), { recursive: true });
  for (const name of BAIT_FILES) writeFileSync(join(paths['bait-directory'], name), `${marker}\n`);
  writeFileSync(paths['bait-file'], `${marker}\n`);
  execFileSync('mkfifo', [paths.fifo]);
  // O_RDWR keeps the FIFO open for writing too: the bytes stay in the pipe, and opening it never blocks.
  const fifo = openSync(paths.fifo, constants.O_RDWR | constants.O_NONBLOCK);
  const payload = Buffer.from(`${marker}\n`.repeat(64));
  writeSync(fifo, payload);
  const before = snapshotTree(dir);

  const drainFifo = (): number => {
    const buffer = Buffer.alloc(payload.length + 1);
    let total = 0;
    for (;;) {
      try {
        const n = readSync(fifo, buffer, 0, buffer.length, null);
        if (n === 0) return total;
        total += n;
      } catch {
        return total; // EAGAIN: empty
      }
    }
  };

  return {
    dir,
    marker,
    path: (entry) => paths[entry],
    leaked: (text) => text.includes(marker),
    problems: () => {
      const found: string[] = [];
      const left = drainFifo();
      if (left !== payload.length)
        found.push(`${payload.length - left} byte(s) were read from the sentinel FIFO ${paths.fifo}`);
      writeSync(fifo, payload);
      for (const path of changedPaths(before, snapshotTree(dir)))
        found.push(`sentinel entry ${join(dir, path)} was created, changed or removed`);
      return found;
    },
    remove: () => {
      closeSync(fifo);
      temp.remove();
    },
  };
}
