import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeletSim, runConformance, type KubeletSim } from '@kdp/kubelet-sim';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { createTempDir } from '@kdp/topology/testing';

const RESOURCE = 'example.com/sample';

// The sample plugin as a real process: SIGKILL, SIGTERM and socket clean-up need one.
describe('the sample plugin as a process', () => {
  let tmp: ReturnType<typeof createTempDir>;
  let bundle: string;
  let dir: string;
  let sim: KubeletSim | undefined;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    tmp = createTempDir();
    bundle = bundleEntry(join(__dirname, 'sample-plugin.fixture.ts'), {
      outfile: join(tmp.path, 'sample-plugin.js'),
    }).path;
  }, 60_000);

  let runDir: ReturnType<typeof createTempDir>;
  beforeEach(() => {
    runDir = createTempDir();
    dir = join(runDir.path, 'dp');
  });

  afterEach(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sim?.close();
    sim = undefined;
    await Promise.all(children.splice(0).map(exited));
    runDir.remove();
  });

  afterAll(() => tmp.remove());

  const start = (): ChildProcess => {
    const child = fork(bundle, [dir, '8'], { stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const exited = (child: ChildProcess): Promise<void> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => child.once('exit', () => resolve()));

  it('passes the kubelet-sim conformance suite, SIGTERM included', async () => {
    const child = start();
    const report = await runConformance({
      dir,
      pid: child.pid ?? 0,
      restarts: 3,
      registrationTimeoutMs: 30_000,
      // Strict: every recommended practice too; the sample plugin advertises both optional RPCs.
      strict: true,
    });
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([]);
    await exited(child);
    expect(readdirSync(dir).filter((name) => name.startsWith('example.com_sample'))).toEqual([]);
  }, 120_000);

  it('after a SIGKILL, the next instance removes the stale socket and registers; a live instance is left alone', async () => {
    const kubelet = await createKubeletSim({ dir });
    sim = kubelet;
    const first = kubelet.waitFor('registered', (e) => e.resource === RESOURCE, 30_000);
    const victim = start();
    const stale = join(dir, (await first).endpoint);
    const ended = kubelet.waitFor('stream-ended', (e) => e.resource === RESOURCE, 30_000);
    victim.kill('SIGKILL');
    await exited(victim);
    await ended;
    expect(existsSync(stale)).toBe(true); // nobody unlinked it

    const second = kubelet.waitFor('registered', (e) => e.resource === RESOURCE, 30_000);
    const listed = kubelet.waitFor(
      'devices',
      (e) => e.resource === RESOURCE && e.devices.length === 8,
      30_000,
    );
    start();
    const live = join(dir, (await second).endpoint);
    await listed;
    expect(live).not.toBe(stale);
    expect(existsSync(stale)).toBe(false);
    expect(kubelet.resource(RESOURCE)).toMatchObject({ registered: true, capacity: 8 });

    // A surge instance starts while the second runs: the second's socket is live and stays.
    const third = kubelet.waitFor('registered', (e) => e.resource === RESOURCE, 30_000);
    start();
    const surge = join(dir, (await third).endpoint);
    expect(surge).not.toBe(live);
    expect(existsSync(live)).toBe(true);
  }, 120_000);
});
