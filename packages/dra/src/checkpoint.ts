import { createHash } from 'node:crypto';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@kdp/base';
import type { CdiContainerEdits, CdiDevice } from '@kdp/core';
import type { ClaimRef } from './check-allocation';
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
  readonly cdi?:
    { readonly devices: readonly CdiDevice[]; readonly containerEdits?: CdiContainerEdits } | undefined;
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

/** The prepared-claims checkpoint of one driver on one node. */
export interface Checkpoint {
  /** The checkpoint file. */
  readonly path: string;
  /** Reads the file (none: empty state); a corrupt one is moved aside, never thrown. Re-saves under a new boot ID. */
  load(): Promise<LoadedCheckpoint>;
  /** Atomically replaces the file with these claims (temp file, fsync, rename; mode 0600). */
  save(claims: ReadonlyMap<string, PreparedClaimRecord>): Promise<void>;
}

/** Options for {@link createCheckpoint}. */
export interface CheckpointOptions {
  /** The plugin's data directory (created 0700). */
  readonly dir: string;
  /** Where procfs is read (`--proc-root`) for the boot ID; default /proc. */
  readonly procRoot?: string | undefined;
  /** File name inside `dir`; default `checkpoint.json`. */
  readonly fileName?: string | undefined;
  /** Milliseconds since the epoch, for the name a corrupt file is moved to. */
  readonly now?: (() => number) | undefined;
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
 * was written under. A file that fails to parse, has another version or a wrong checksum is renamed to
 * `<file>.corrupt-<ms>` and reported by {@link Checkpoint.load}, so a bad file never crash-loops the plugin.
 */
export function createCheckpoint(options: CheckpointOptions): Checkpoint {
  const { dir } = options;
  const path = join(dir, options.fileName ?? 'checkpoint.json');
  const now = options.now ?? Date.now;
  let bootId: string | undefined;

  const save = async (claims: ReadonlyMap<string, PreparedClaimRecord>): Promise<void> => {
    bootId ??= await readBootId(options.procRoot);
    const data = { bootId, claims: Object.fromEntries(claims) };
    const file: CheckpointFile = { version: CHECKPOINT_VERSION, checksum: checksum(data), data };
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  };

  const load = async (): Promise<LoadedCheckpoint> => {
    bootId = await readBootId(options.procRoot);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { claims: new Map(), bootId };
      throw error;
    }
    const problem = validate(text);
    if (typeof problem === 'string') {
      const movedTo = `${path}.corrupt-${Math.floor(now())}`;
      await rename(path, movedTo);
      return { claims: new Map(), bootId, corrupt: { reason: problem, movedTo } };
    }
    const claims = new Map(Object.entries(problem.data.claims));
    const previous = problem.data.bootId;
    if (previous === bootId) return { claims, bootId };
    await save(claims);
    return { claims, bootId, previousBootId: previous };
  };

  return { path, load, save };
}

function checksum(data: CheckpointFile['data']): string {
  return createHash('sha256').update(JSON.stringify(data)).digest('hex');
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
  if (file.checksum !== checksum(data)) return 'checksum mismatch';
  return file as CheckpointFile;
}
