import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** SIGTERM, then SIGKILL after `graceMs` if it still runs; resolves once the process exited (at once if it had). */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
