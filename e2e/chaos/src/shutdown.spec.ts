import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  allInOneServeArgs,
  createSampleNode,
  PLUGIN_NAMES,
  pluginServeArgs,
  type PluginDirs,
  type PluginName,
  type SampleNode,
} from '@kdp/demo';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';

// Shutdown under a storm of signals, as a real process must take it: the kubelet (or an impatient operator)
// may send SIGTERM and SIGINT again and again while the plugin is cleaning up. Any number of them must lead to
// one clean exit, status 0 and not by signal, with every socket, CDI spec and device-info file removed.

const repoRoot = join(__dirname, '../../..');
const bundleOf = (binary: PluginName | 'all-in-one'): string =>
  binary === 'all-in-one'
    ? join(repoRoot, 'packages/device-plugins/dist/main.js')
    : join(repoRoot, `packages/plugin-${binary}/dist/main.js`);

/** Kubernetes' default termination grace period: the whole storm must end well inside it. */
const GRACE_MS = 30_000;

/** Sends SIGTERM and SIGINT, alternating, every millisecond until the process exits; resolves with the count. */
async function signalStorm(child: ChildProcess): Promise<number> {
  // SIGTERM and SIGINT back to back: both are pending before the child's event loop dispatches either, so the
  // second always reaches a process already shutting down, however fast its shutdown (or slow this process) is.
  process.kill(child.pid ?? 0, 'SIGTERM');
  process.kill(child.pid ?? 0, 'SIGINT');
  let sent = 2;
  while (child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(child.pid ?? 0, sent % 2 === 0 ? 'SIGTERM' : 'SIGINT');
      sent += 1;
    } catch {
      break; // ESRCH: it has just exited.
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return sent;
}

describe('shutdown under repeated SIGTERM and SIGINT', () => {
  let node: SampleNode;
  let work: string;
  let sim: KubeletSim | undefined;
  let child: ChildProcess | undefined;
  let stderr = '';

  beforeEach(() => {
    node = createSampleNode();
    work = mkdtempSync(join(tmpdir(), 'kdp-shutdown-'));
    stderr = '';
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
    await sim?.close();
    sim = undefined;
    node.remove();
    rmSync(work, { recursive: true, force: true });
  });

  it.each([...PLUGIN_NAMES, 'all-in-one' as const])(
    '%s: one clean exit, every socket, CDI spec and device-info file removed',
    async (binary) => {
      const dirs: PluginDirs = {
        node,
        devicePluginDir: join(work, 'device-plugins'),
        cdiDir: join(work, 'cdi'),
        devinfoDir: join(work, 'devinfo'),
      };
      for (const dir of [dirs.devicePluginDir, dirs.cdiDir, dirs.devinfoDir])
        mkdirSync(dir, { recursive: true });
      sim = await createKubeletSim({ dir: dirs.devicePluginDir });
      const expected = node.expected.filter((e) => binary === 'all-in-one' || e.plugin === binary);
      child = spawn(
        process.execPath,
        [
          bundleOf(binary),
          ...(binary === 'all-in-one' ? allInOneServeArgs(dirs) : pluginServeArgs(binary, dirs)),
          ...['--device-list-strategy', 'cdi'],
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child?.once('exit', (code, signal) => resolve({ code, signal })),
      );
      for (const { resource, devices } of expected)
        await sim.until(resource, (s) => s.healthy.length === devices, 60_000);

      // Something of everything the plugin cleans up exists before the storm.
      if (expected.some((e) => e.plugin === 'sriov')) {
        await sim.admit({ pod: 'p', container: 'c', resource: 'intel.com/sriov_dpdk', count: 1 });
        const files = readdirSync(dirs.devinfoDir, { recursive: true, withFileTypes: true });
        expect(files.filter((e) => e.isFile()).length).toBeGreaterThan(0);
      }
      expect(readdirSync(dirs.cdiDir).length).toBeGreaterThan(0);
      const pluginSockets = (): string[] =>
        readdirSync(dirs.devicePluginDir).filter((name) => name.endsWith('.sock') && name !== 'kubelet.sock');
      const sockets = pluginSockets();
      expect(sockets.length).toBeGreaterThanOrEqual(expected.length);

      const started = Date.now();
      const sent = await signalStorm(child);
      const { code, signal } = await exited;
      const tookMs = Date.now() - started;

      expect({ code, signal, stderr: code === 0 ? '' : stderr.slice(-1500) }).toEqual({
        code: 0,
        signal: null,
        stderr: '',
      });
      // More than the first signal reached a process that was already shutting down.
      expect(sent).toBeGreaterThan(1);
      expect(stderr).toContain('already shutting down');
      expect(tookMs).toBeLessThan(GRACE_MS);
      expect(pluginSockets()).toEqual([]);
      expect(readdirSync(dirs.cdiDir)).toEqual([]);
      const leftFiles = readdirSync(dirs.devinfoDir, { recursive: true, withFileTypes: true }).filter((e) =>
        e.isFile(),
      );
      expect(leftFiles.map((e) => e.name)).toEqual([]);
    },
  );
});
