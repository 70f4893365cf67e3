// The example's own test: the plugin runs as a process against temporary directories, `kubelet-sim check`
// (the conformance suite, SIGTERM included) must pass, and a device whose file turns "broken" must be seen
// Unhealthy by a simulated kubelet. Every wait is on an event, bounded by a generous timeout.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKubeletSim } from '@kdp/kubelet-sim';

const root = join(__dirname, '..', '..');
const resource = 'example.com/hello';

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A devices directory with two healthy devices, hello0 and hello1. */
function devicesDir(): string {
  const dir = tempDir('hello-dev-');
  writeFileSync(join(dir, 'hello0'), 'ok\n');
  writeFileSync(join(dir, 'hello1'), 'healthy');
  return dir;
}

/** Starts a process; `exit` resolves with its exit code and everything it wrote. */
function start(
  command: string,
  args: string[],
): { child: ChildProcess; exit: Promise<[number | null, string]> } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit').then(
    ([code]) => [code as number | null, output] as [number | null, string],
  );
  after(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return { child, exit };
}

function startPlugin(devices: string, devicePluginDir: string) {
  const args = ['serve', '--dir', devices, '--device-plugin-dir', devicePluginDir];
  return start(process.execPath, [join(root, 'dist', 'src', 'main.js'), ...args]);
}

test('kubelet-sim check passes, SIGTERM included', { timeout: 120_000 }, async () => {
  const dir = tempDir('hello-dp-');
  const plugin = startPlugin(devicesDir(), dir);
  const bin = join(root, 'node_modules', '.bin', 'kubelet-sim');
  const check = start(bin, [
    'check',
    '--dir',
    dir,
    '--resource',
    resource,
    '--pid',
    String(plugin.child.pid),
  ]);
  const [code, report] = await check.exit;
  assert.equal(code, 0, report);
  assert.match(report, /sigterm-unlinks-socket/);
  const [pluginCode, log] = await plugin.exit;
  assert.equal(pluginCode, 0, log);
});

test(
  'a device whose file says "broken" turns Unhealthy; Allocate gives the IDs and the files',
  { timeout: 60_000 },
  async () => {
    const sim = await createKubeletSim({ dir: tempDir('hello-dp-') });
    after(() => sim.close());
    const devices = devicesDir();
    const listed = sim.waitFor('devices', (e) => e.resource === resource && e.healthy.length === 2, 30_000);
    const plugin = startPlugin(devices, sim.dir);
    await listed;

    const { deviceIds, response } = await sim.admit({ pod: 'p', container: 'c', resource, count: 2 });
    assert.deepEqual([...deviceIds].sort(), ['hello0', 'hello1']);
    assert.deepEqual(response.envs['HELLO_DEVICES']?.split(',').sort(), ['hello0', 'hello1']);
    assert.deepEqual(response.mounts.map((m) => [m.containerPath, m.hostPath, m.readOnly]).sort(), [
      ['/hello/hello0', join(devices, 'hello0'), true],
      ['/hello/hello1', join(devices, 'hello1'), true],
    ]);

    const flipped = sim.waitFor(
      'devices',
      (e) => e.resource === resource && e.unhealthy.includes('hello1'),
      30_000,
    );
    writeFileSync(join(devices, 'hello1'), 'broken\n');
    const event = await flipped;
    assert.deepEqual(event.healthy, ['hello0']);

    plugin.child.kill('SIGTERM');
    const [code, log] = await plugin.exit;
    assert.equal(code, 0, log);
  },
);
