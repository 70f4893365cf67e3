import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { CdiDevice } from '@kdp/core';
import type { ClaimRef } from './check-allocation';
import { createCheckpointLock } from './checkpoint-lock';
import { replaceFile } from './replace-file';
import { sameState } from './same-state';
import { syncDirectory } from './sync-directory';
import type { DeviceRequestAllocationResult } from './resource-claim';

/** The checkpoint format version this code writes and reads. */
export const CHECKPOINT_VERSION = 1;

/** One device of a prepared claim, as returned to the kubelet. */
export interface PreparedDeviceRecord {
  readonly requestNames: readonly string[];
  readonly poolName: string;
  readonly deviceName: string;
  readonly cdiDeviceIds: readonly string[];
  readonly shareId?: string | undefined;
}

/** A claim's state on this node: `PrepareStarted` until the driver's work and the CDI spec are done. */
export interface PreparedClaimRecord extends ClaimRef {
  readonly state: 'PrepareStarted' | 'PrepareCompleted';
  /** This driver's allocation results (for the one-device-one-claim check). */
  readonly results: readonly DeviceRequestAllocationResult[];
  readonly devices: readonly PreparedDeviceRecord[];
  /** The claim's CDI spec content, re-written when the file is gone (e.g. after a reboot cleared /var/run/cdi). */
  readonly cdi?: { readonly devices: readonly CdiDevice[] } | undefined;
}

/** What {@link Checkpoint.load} found. */
export interface LoadedCheckpoint {
  readonly claims: Map<string, PreparedClaimRecord>;
  /** This boot's ID (`/proc/sys/kernel/random/boot_id`), '' when unreadable. */
  readonly bootId: string;
  /** The boot ID the checkpoint was written under, when it differs from this boot's: the node rebooted. */
  readonly previousBootId?: string | undefined;
  /** Set when the file was unreadable as a checkpoint and moved aside; the state starts empty. */
  readonly corrupt?: { readonly reason: string; readonly movedTo: string } | undefined;
}

/** Something the checkpoint found on a read under the lock (at start, or written by another instance). */
export type CheckpointEvent =
  | { readonly type: 'checkpoint-corrupt'; readonly reason: string; readonly movedTo: string }
  | {
      readonly type: 'rebooted';
      readonly previousBootId: string;
      readonly bootId: string;
      /** The UIDs of the claims prepared in the other boot, discarded: the kubelet prepares them again. */
      readonly discarded: readonly string[];
    };

/** The prepared-claims checkpoint of one driver on one node, shared by the driver's instances. */
export interface Checkpoint {
  /** The checkpoint file. */
  readonly path: string;
  /** The lock file the instances take for every read-modify-write. */
  readonly lockPath: string;
  /** Reads the file under the lock at start (see {@link Checkpoint.update}); nothing there: empty state. */
  load(): Promise<LoadedCheckpoint>;
  /**
   * A snapshot without the lock (writes are atomic renames): the claims as last written; a file that is corrupt
   * or of another boot reads as empty (the next {@link Checkpoint.update} deals with it).
   */
  read(): Promise<Map<string, PreparedClaimRecord>>;
  /**
   * Read-modify-write under the lock: `change` gets the claims as they are on disk now and changes the map in
   * place; it is written (temp file, rename; mode 0600) when a record was added, replaced or removed, and made
   * durable (one fsync of the directory) unless `durable` is false. A corrupt file is moved aside, and records of
   * another boot are discarded, each reported to `onEvent`.
   */
  update<T>(
    change: (claims: Map<string, PreparedClaimRecord>) => T | Promise<T>,
    options?: CheckpointUpdateOptions,
  ): Promise<{ readonly result: T; readonly claims: ReadonlyMap<string, PreparedClaimRecord> }>;
}

/** Options of {@link Checkpoint.update}. */
export interface CheckpointUpdateOptions {
  /**
   * Whether the written file must be on disk when the update resolves (default true). False for a step that a
   * durable write of the same call follows: the process dying loses nothing either way (the page cache holds the
   * rename), and what a crash of the node loses is discarded at the next boot anyway.
   */
  readonly durable?: boolean | undefined;
}

/** Options for {@link createCheckpoint}. */
export interface CheckpointOptions {
  /** The plugin's data directory (created 0700). */
  readonly dir: string;
  /** Where procfs is read (`--proc-root`) for the boot ID; default /proc. */
  readonly procRoot?: string | undefined;
  /** File name inside `dir`; default `checkpoint.json` (the lock is `<file>.lock`). */
  readonly fileName?: string | undefined;
  /** Milliseconds since the epoch, for the name a corrupt file is moved to. */
  readonly now?: (() => number) | undefined;
  /** This instance, as other instances' lock messages name it. */
  readonly owner?: string | undefined;
  /** Lock timing (tests); see `createCheckpointLock`. */
  readonly lock?: { readonly staleMs?: number; readonly timeoutMs?: number } | undefined;
  /** Told what a read under the lock found: a corrupt file moved aside, records of another boot discarded. */
  readonly onEvent?: ((event: CheckpointEvent) => void) | undefined;
  /** Told when a stale lock of a dead instance was taken over. */
  readonly onLockTakeover?: ((owner: string, ageMs: number) => void) | undefined;
  /** Makes the renames in a directory durable; default `syncDirectory` (its fsync). Tests count the calls. */
  readonly syncDirectory?: ((dir: string) => Promise<void>) | undefined;
}

interface CheckpointFile {
  version: number;
  checksum: string;
  data: { bootId: string; claims: Record<string, PreparedClaimRecord> };
}

/** Reads this boot's ID from `<procRoot>/sys/kernel/random/boot_id`; '' when unreadable. */
export async function readBootId(procRoot = '/proc'): Promise<string> {
  const text = await readFile(join(procRoot, 'sys/kernel/random/boot_id'), 'utf8').catch(() => '');
  return text.trim();
}

/**
 * Creates the checkpoint of prepared claims: versioned JSON with a SHA-256 checksum of its data and the boot ID it
 * was written under. Every change is a read-modify-write under a lock file (`createCheckpointLock`), so instances
 * sharing the file (a rolling update) never overwrite each other's records. A file that fails to parse, has
 * another version or a wrong checksum is renamed to `<file>.corrupt-<ms>`, so a bad file never crash-loops the
 * plugin; records written under another boot ID are discarded (a reboot undid what prepare did, and the kubelet
 * prepares its pods' claims again), as NVIDIA's driver does.
 */
export function createCheckpoint(options: CheckpointOptions): Checkpoint {
  const { dir } = options;
  const path = join(dir, options.fileName ?? 'checkpoint.json');
  const lockPath = `${path}.lock`;
  const now = options.now ?? Date.now;
  const report = options.onEvent ?? (() => undefined);
  const lock = createCheckpointLock({
    path: lockPath,
    owner: options.owner ?? `pid ${process.pid}`,
    ...options.lock,
    onTakeover: options.onLockTakeover,
  });
  const sync = options.syncDirectory ?? syncDirectory;
  let bootId: string | undefined;
  const currentBootId = async (): Promise<string> => (bootId ??= await readBootId(options.procRoot));

  /**
   * The text last written or read, and the file it validated to. A prepare reads the checkpoint three times and
   * writes it twice: an unchanged file is not parsed and hashed again, and no record is copied (they are never
   * changed in place, only replaced).
   */
  let known: { readonly text: string; readonly file: CheckpointFile } | undefined;
  const validated = (text: string): CheckpointFile | string => {
    if (known?.text === text) return known.file;
    const parsed = validate(text);
    if (typeof parsed !== 'string') known = { text, file: parsed };
    return parsed;
  };

  /**
   * One write: a temporary file renamed over the checkpoint, then — when `durable` — one fsync of the directory,
   * which makes the rename durable. The file itself is not fsynced, on purpose. A process that dies loses nothing
   * that was renamed (the page cache has it); only a crash of the node can lose data not synced, and after one the
   * boot ID has changed and every record of the previous boot is discarded anyway (`readLocked`). What remains is
   * a file whose new name reached the disk before its data: on ext4 (data=ordered, auto_da_alloc, the defaults)
   * and btrfs the commit the directory fsync forces writes the data of a file renamed over another first; elsewhere
   * the file reads as corrupt (not JSON, or its checksum fails), is moved aside, and the driver starts with no
   * claims, which the kubelet prepares again. So no lost write is ever read as records, and a second fsync per
   * write would buy nothing. The directory fsync is what makes the state on disk the one the kubelet was told
   * when the boot ID cannot be read (then records outlive a reboot).
   */
  const write = async (claims: ReadonlyMap<string, PreparedClaimRecord>, durable: boolean): Promise<void> => {
    const data = { bootId: await currentBootId(), claims: Object.fromEntries(claims) };
    const { file, text } = serialize(data);
    // Written under the lock, whose file is in `dir`: the directory is made only if it has gone since.
    try {
      await replaceFile(path, text, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await replaceFile(path, text, 0o600);
    }
    known = { text, file };
    if (durable) await sync(dir);
  };

  /** The file's text, or undefined when there is none. */
  const readText = async (): Promise<string | undefined> => {
    try {
      // Synchronous: a read of a small file in the page cache takes microseconds, where `fs/promises.readFile` is
      // four round trips through libuv's thread pool, queued behind the writes and the fsync of other calls
      // (measured with the DRA prepare bench: p50 8.2–10.8 → 4.9–6.7 ms with the lock's reads and mkdirs).
      return readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  /** Under the lock: the claims to work on, after moving a corrupt file aside or discarding another boot's. */
  const readLocked = async (): Promise<
    Omit<LoadedCheckpoint, 'claims'> & { claims: Map<string, PreparedClaimRecord>; dirty: boolean }
  > => {
    const current = await currentBootId();
    const text = await readText();
    if (text === undefined) return { claims: new Map(), bootId: current, dirty: false };
    const parsed = validated(text);
    if (typeof parsed === 'string') {
      const movedTo = `${path}.corrupt-${Math.floor(now())}`;
      await rename(path, movedTo);
      report({ type: 'checkpoint-corrupt', reason: parsed, movedTo });
      return { claims: new Map(), bootId: current, corrupt: { reason: parsed, movedTo }, dirty: false };
    }
    const claims = new Map(Object.entries(parsed.data.claims));
    const previous = parsed.data.bootId;
    if (previous === current) return { claims, bootId: current, dirty: false };
    report({ type: 'rebooted', previousBootId: previous, bootId: current, discarded: [...claims.keys()] });
    return { claims: new Map(), bootId: current, previousBootId: previous, dirty: true };
  };

  const update: Checkpoint['update'] = (change, updateOptions) =>
    lock.run(async () => {
      const { claims, dirty } = await readLocked();
      const before = new Map(claims);
      const result = await change(claims);
      if (dirty || !sameState(before, claims)) await write(claims, updateOptions?.durable !== false);
      return { result, claims };
    });

  return {
    path,
    lockPath,
    load: () =>
      lock.run(async () => {
        const { dirty, ...loaded } = await readLocked();
        if (dirty) await write(loaded.claims, true);
        return loaded;
      }),
    async read() {
      const text = await readText();
      const parsed = text === undefined ? 'none' : validated(text);
      if (typeof parsed === 'string' || parsed.data.bootId !== (await currentBootId())) return new Map();
      return new Map(Object.entries(parsed.data.claims));
    },
    update,
  };
}

function checksum(dataJson: string): string {
  return createHash('sha256').update(dataJson).digest('hex');
}

/** The file of `data` and its text, `JSON.stringify(file)` and a newline, with the data stringified once. */
function serialize(data: CheckpointFile['data']): { file: CheckpointFile; text: string } {
  const dataJson = JSON.stringify(data);
  const file: CheckpointFile = { version: CHECKPOINT_VERSION, checksum: checksum(dataJson), data };
  // The keys in the order `JSON.stringify(file)` writes them.
  return {
    file,
    text: `{"version":${file.version},"checksum":${JSON.stringify(file.checksum)},"data":${dataJson}}\n`,
  };
}

/** The parsed file, or why it is not a checkpoint this code can use. */
function validate(text: string): CheckpointFile | string {
  let file: Partial<CheckpointFile>;
  try {
    file = JSON.parse(text) as Partial<CheckpointFile>;
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (file === null || typeof file !== 'object') return 'not a JSON object';
  if (file.version !== CHECKPOINT_VERSION)
    return `version ${JSON.stringify(file.version)}, expected ${CHECKPOINT_VERSION}`;
  const data = file.data;
  if (data === null || typeof data !== 'object' || typeof data.bootId !== 'string')
    return 'data.bootId is missing';
  if (data.claims === null || typeof data.claims !== 'object') return 'data.claims is missing';
  if (file.checksum !== checksum(JSON.stringify(data))) return 'checksum mismatch';
  return file as CheckpointFile;
}
