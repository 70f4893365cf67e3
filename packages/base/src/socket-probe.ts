import { connect } from 'node:net';
import { sleep, type Clock } from './clock';

/** Resolves true when something accepts a connection on the unix socket `path` within `timeoutMs`. */
export function isDialable(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Dials `path` until it answers, retrying every `intervalMs` (P-11: serve first); throws after `timeoutMs`, or at
 * once when `stillOurs` says the file was deleted or replaced meanwhile (a starting kubelet deletes sockets, P-2).
 */
export async function waitDialable(
  path: string,
  clock: Clock,
  stillOurs: () => Promise<boolean>,
  timeoutMs = 5000,
  intervalMs = 20,
): Promise<void> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    if (await isDialable(path, Math.max(1, Math.min(1000, deadline - clock.now())))) return;
    if (!(await stillOurs())) throw new Error(`own socket ${path} was deleted while starting`);
    if (clock.now() >= deadline) throw new Error(`own socket ${path} is not dialable after ${timeoutMs} ms`);
    await sleep(clock, intervalMs);
  }
}
