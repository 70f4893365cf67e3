import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stopProcess } from './stop-process';

describe('stopProcess', () => {
  const node = (script: string) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    // The script says "up" once its handlers are in place.
    return once(child.stdout, 'data').then(() => child);
  };

  it('ends a process with SIGTERM', async () => {
    const child = await node('setInterval(() => {}, 1000); console.log("up")');
    await stopProcess(child, 30_000);
    expect(child.signalCode).toBe('SIGTERM');
  }, 30_000);

  it('kills one that ignores SIGTERM after the grace period', async () => {
    const child = await node(
      'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("up")',
    );
    await stopProcess(child, 200);
    expect(child.signalCode).toBe('SIGKILL');
  }, 30_000);

  it('returns at once for a process that already exited', async () => {
    const child = await node('console.log("up")');
    if (child.exitCode === null) await once(child, 'exit');
    await expect(stopProcess(child)).resolves.toBeUndefined();
    expect(child.exitCode).toBe(0);
  }, 30_000);
});
