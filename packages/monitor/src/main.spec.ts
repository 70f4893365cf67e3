import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleEntry, type EntryBundle } from '@kdp/kubelet-sim/testing';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import {
  podWithDevices,
  startFakePodResourcesServer,
  type FakePodResourcesServer,
} from './testing/fake-pod-resources-server';

// The bundle `npx device-monitor` runs, built the way project.json's build target builds it, into a
// private directory so that a parallel `nx build` or another test run never swaps it underneath.
let built: EntryBundle | undefined;
let bundle = '';
afterAll(() => built?.remove());
const packageVersion = (require('../package.json') as { version: string }).version;

beforeAll(() => {
  built = bundleEntry(join(__dirname, 'main.ts'));
  bundle = built.path;
}, 60_000);

const runSync = (...args: string[]) =>
  spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('device-monitor binary', () => {
  it('prints its version and help, and exits 2 on a bad flag', () => {
    expect(runSync('--version')).toMatchObject({ status: 0, stdout: `device-monitor ${packageVersion}\n` });
    expect(runSync('--help')).toMatchObject({
      status: 0,
      stdout: expect.stringContaining('--pod-resources-socket PATH'),
    });
    const bad = runSync('--interval', 'soon');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      "device-monitor: --interval: 'soon' is not a whole number of milliseconds in 10..3600000\nRun 'device-monitor --help' for usage.\n",
    );
  });

  describe('serving', () => {
    let temp: TempDir;
    let fake: FakePodResourcesServer;
    beforeAll(async () => {
      temp = createTempDir('mon-');
      fake = await startFakePodResourcesServer(join(temp.path, 'pr.sock'));
      fake.list = {
        podResources: [podWithDevices('web', 'app', 'example.com/dev', ['d0'], { namespace: 'prod' })],
      };
    });
    afterAll(async () => {
      await fake.close();
      temp.remove();
    });

    it('serves metrics from the socket, keeps running while the kubelet is away, and exits 0 on SIGTERM', async () => {
      const socket = join(temp.path, 'pr.sock');
      const child = spawn(
        process.execPath,
        [
          bundle,
          `--pod-resources-socket=${socket}`,
          '--metrics-address=127.0.0.1:0',
          '--interval=50',
          '--log-level=debug',
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      const exited = once(child, 'exit');
      try {
        const logs = createInterface({ input: child.stderr });
        let port = 0;
        for await (const line of logs) {
          const entry = JSON.parse(line) as { msg: string; metricsPort?: number };
          if (entry.msg === 'device-monitor started') {
            // pino's line: level as a word, ISO time, the program's name and pid, then the fields.
            expect(entry).toMatchObject({
              level: 'info',
              time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
              name: 'device-monitor',
              pid: child.pid,
              metricsAddress: `127.0.0.1:${entry.metricsPort}`,
              intervalMs: 50,
            });
            port = entry.metricsPort ?? 0;
            break;
          }
        }
        const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const waitFor = async (predicate: (text: string) => boolean) => {
          const deadline = Date.now() + 20_000;
          for (;;) {
            const text = await scrape();
            if (predicate(text)) return text;
            if (Date.now() > deadline) throw new Error(`metrics never matched; last:\n${text}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        };
        await waitFor((t) =>
          t.includes(
            'kdp_container_allocated_devices{namespace="prod",pod="web",container="app",resource="example.com/dev",device="d0",numa_node=""} 1',
          ),
        );
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        await fake.close();
        await waitFor((t) => t.includes('kdp_monitor_pod_resources_up 0'));
        expect(child.exitCode).toBeNull();
        child.kill('SIGTERM');
        expect(await exited).toEqual([0, null]);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 60_000);
  });
});
