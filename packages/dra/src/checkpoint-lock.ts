import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link createCheckpointLock}. */
export interface CheckpointLockOptions {
  /** The lock file (`<checkpoint>.lock`), in the checkpoint's directory. */
  readonly path: string;
  /** Who holds it, for the messages of the others (`pod <uid>, pid <pid>`). */
  readonly owner: string;
  /** A lock older than this is left by a holder that died in its critical section and is taken over; 10 000. */
  readonly staleMs?: number | undefined;
  /** How long to wait for a live holder before giving up (the call fails, the kubelet retries); 30 000. */
  readonly timeoutMs?: number | undefined;
  /** Milliseconds since the epoch (shared by every instance on the node); default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Told when a stale lock of `owner` was taken over. */
  readonly onTakeover?: ((owner: string, ageMs: number) => void) | undefined;
}

/** A lock between the driver instances that share a checkpoint (a rolling update runs two at once). */
export interface CheckpointLock {
  /** Runs `critical` holding the lock (one at a time in this process, and across processes). */
  run<T>(critical: () => Promise<T>): Promise<T>;
}

/** What the lock file says: written by its holder right after creating it. */
interface LockContent {
  readonly token?: string;
  readonly owner?: string;
  readonly acquiredAt?: number;
}

interface HeldLock {
  readonly text: string;
  readonly owner: string;
  readonly ageMs: number;
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

function parse(text: string): LockContent {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as LockContent) : {};
  } catch {
    return {};
  }
}

/**
 * Creates the checkpoint lock. Node has no `flock`, so the lock is a file created with `O_EXCL` (`wx`) holding
 * `{ token, owner, pid, acquiredAt }`, removed by its holder when the short critical section (read, change, write
 * of the checkpoint) ends. A contender polls (5 ms doubling to 100 ms) until the file is gone, failing after
 * `timeoutMs`. A file older than `staleMs` (its `acquiredAt`, else its mtime: the holder died between create and
 * write) was left by a holder that died holding it: it is renamed aside under a unique name and removed only if it
 * is still the same file (same content); if another contender took the lock in between, the renamed file is
 * linked back (`link` fails rather than replace a newer lock). With two instances — a rolling update — this is
 * exclusive; with three or more racing for a stale lock at the same instant, two could in theory both hold it.
 */
export function createCheckpointLock(options: CheckpointLockOptions): CheckpointLock {
  const { path, owner } = options;
  const staleMs = options.staleMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  let tail: Promise<unknown> = Promise.resolve();

  const held = async (): Promise<HeldLock | undefined> => {
    try {
      const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
      const content = parse(text);
      const since = typeof content.acquiredAt === 'number' ? content.acquiredAt : info.mtimeMs;
      return { text, owner: content.owner ?? 'unknown', ageMs: now() - since };
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
  };

  const takeOver = async (stale: HeldLock): Promise<void> => {
    const aside = `${path}.stale-${randomUUID()}`;
    try {
      await rename(path, aside);
    } catch (error) {
      if (code(error) === 'ENOENT') return;
      throw error;
    }
    const moved = await readFile(aside, 'utf8').catch(() => undefined);
    if (moved !== stale.text) await link(aside, path).catch(() => undefined);
    else options.onTakeover?.(stale.owner, stale.ageMs);
    await unlink(aside).catch(() => undefined);
  };

  const acquire = async (): Promise<string> => {
    const deadline = now() + timeoutMs;
    let madeDirectory = false;
    for (let attempt = 0; ; attempt += 1) {
      const token = randomUUID();
      try {
        const handle = await open(path, 'wx', 0o600);
        try {
          await handle.writeFile(JSON.stringify({ token, owner, pid: process.pid, acquiredAt: now() }));
        } finally {
          await handle.close();
        }
        return token;
      } catch (error) {
        // The directory is made when it is missing, not before every attempt: one file operation less per lock.
        if (code(error) === 'ENOENT' && !madeDirectory) {
          madeDirectory = true;
          await mkdir(dirname(path), { recursive: true, mode: 0o700 });
          continue;
        }
        if (code(error) !== 'EEXIST') throw error;
      }
      const current = await held();
      if (current === undefined) continue;
      if (current.ageMs >= staleMs) {
        await takeOver(current);
        continue;
      }
      if (now() >= deadline)
        throw new Error(
          `checkpoint lock ${path} is held by ${current.owner} (for ${Math.round(current.ageMs)} ms); try again`,
        );
      await sleep(Math.min(100, 5 * 2 ** attempt) * (0.5 + Math.random() / 2));
    }
  };

  const release = async (token: string): Promise<void> => {
    let text = '';
    try {
      text = readFileSync(path, 'utf8'); // synchronous, as the checkpoint's own read (see checkpoint.ts)
    } catch {
      // gone or unreadable: not ours to remove
    }
    if (parse(text).token === token) await unlink(path).catch(() => undefined);
  };

  return {
    run<T>(critical: () => Promise<T>): Promise<T> {
      const next = async (): Promise<T> => {
        const token = await acquire();
        try {
          return await critical();
        } finally {
          await release(token);
        }
      };
      const result = tail.then(next, next);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
