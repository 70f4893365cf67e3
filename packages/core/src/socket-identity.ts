import { lstat } from 'node:fs/promises';

/** Which socket file a path names: a new socket at the same path is another identity. */
export interface SocketIdentity {
  readonly ino: number;
  readonly dev: number;
}

/** The identity of the socket at `path`; undefined when there is none (or something else is there). */
export async function socketIdentity(path: string): Promise<SocketIdentity | undefined> {
  try {
    const stat = await lstat(path);
    return stat.isSocket() ? { ino: stat.ino, dev: stat.dev } : undefined;
  } catch {
    return undefined;
  }
}

/** True when both are known and name the same socket file. */
export const sameSocket = (a: SocketIdentity | undefined, b: SocketIdentity | undefined): boolean =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev;
