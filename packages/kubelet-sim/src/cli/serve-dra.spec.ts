import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeDraDriver } from '../dra/fake-dra-driver.fixture';
import { kubectl } from '../playground/kubectl.fixture';
import { expectTwoRequestsPod, expectUnschedulablePod } from '../playground/playground-checks.fixture';
import { startPlaygroundDriver } from '../playground/playground-driver.fixture';
import { testDevices, testDriver } from '../playground/playground-manifests.fixture';
import { bundleEntry } from '../testing/bundle-entry';

jest.setTimeout(180_000);

interface Kubeconfig {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ user: { token: string } }>;
}

describe('kubelet-sim serve --dra', () => {
  let main: string;
  let root: string;
  beforeAll(() => {
    main = bundleEntry(join(__dirname, '../main.ts')).path;
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ks-serve-dra-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('exits 2 naming the flag on a usage error', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [main, 'serve', '--dra', '--plugins-registry', root, '--nodes', 'two'],
        (err, _out, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr }),
      ),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^kubelet-sim: --nodes needs an integer of at least 1, got "two"/);
  });

  it('serves the playground to real kubectl: two requests in two containers on the node with the driver, a claim that fits nowhere, then stops on SIGTERM', async () => {
    const kubeconfig = join(root, 'kubeconfig');
    const child: ChildProcess = spawn(
      process.execPath,
      [
        main,
        'serve',
        '--dra',
        '--plugins-registry',
        join(root, 'registry'),
        '--kubeconfig-out',
        kubeconfig,
        '--nodes',
        '2',
        '--cdi-dir',
        join(root, 'cdi'),
        '--dev-root',
        join(root, 'dev'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let driver: FakeDraDriver | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner; stderr:\n${stderr}`)), 60_000);
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (!/Ctrl-C stops/.test(stderr)) return;
          clearTimeout(timer);
          resolve();
        });
      });
      expect(stderr).toMatch(
        /^kubelet-sim serve --dra: API server https:\/\/127\.0\.0\.1:\d+; kubectl --kubeconfig .*; scheduler on; nodes kubelet-sim-node \(drivers in .*registry\), kubelet-sim-node-2 \(drivers in .*registry\/kubelet-sim-node-2\)/,
      );
      const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
      const cluster = config.clusters[0]?.cluster;
      driver = await startPlaygroundDriver({
        driver: testDriver,
        nodeName: 'kubelet-sim-node-2',
        registryDir: join(root, 'registry', 'kubelet-sim-node-2'),
        pluginDir: join(root, 'plugin'),
        cdiDir: join(root, 'cdi'),
        devRoot: join(root, 'dev'),
        api: {
          url: cluster?.server ?? '',
          token: config.users[0]?.user.token ?? '',
          caData: Buffer.from(cluster?.['certificate-authority-data'] ?? '', 'base64').toString('utf8'),
        },
        devices: testDevices,
        publish: async (slice) =>
          void (await kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify(slice))),
      });
      await expectTwoRequestsPod(kubeconfig, 'kubelet-sim-node-2');
      await expectUnschedulablePod(kubeconfig);
      expect(stdout).toMatch(
        /^scheduler {11}\S+ +scheduled +default\/two-containers +node=kubelet-sim-node-2 claims=two-requests$/m,
      );
      expect(stdout).toMatch(
        /^kubelet-sim-node-2 {2}\S+ +dra-prepared +default\/two-containers +two-requests$/m,
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await driver?.stop();
    }
  });
});
