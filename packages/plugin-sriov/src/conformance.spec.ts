import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addTwoPfNode, UPSTREAM_CONFIG } from './sriov-node.fixture';

const repoRoot = join(__dirname, '..', '..', '..');
const bundle = join(__dirname, '..', 'dist', 'main.js');

describe('kubelet-sim conformance of sriov-device-plugin serve', () => {
  let fixture: SysfsFixture;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    execFileSync(
      join(repoRoot, 'node_modules', '.bin', 'esbuild'),
      [
        join(__dirname, 'main.ts'),
        '--bundle',
        '--platform=node',
        '--target=node20',
        '--format=cjs',
        '--conditions=@kdp/source',
        `--outfile=${bundle}`,
        '--log-level=warning',
      ],
      { cwd: repoRoot },
    );
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
    writeFileSync(join(fixture.base, 'config.json'), UPSTREAM_CONFIG);
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    fixture.remove();
  });

  it.each(['intel.com/intel_sriov_dpdk', 'nvidia.com/mlnx_sriov_rdma'])(
    'passes every check for %s, SIGTERM included',
    async (resource) => {
      const dir = join(fixture.base, resource.replace(/\W/g, ''));
      mkdirSync(dir, { mode: 0o750 });
      // The plugin starts first and retries Register until the suite's simulated kubelet serves kubelet.sock.
      child = spawn(
        process.execPath,
        [
          bundle,
          'serve',
          '--sysfs-root',
          fixture.root,
          '--proc-root',
          fixture.procRoot,
          '--dev-root',
          fixture.devRoot,
          '--device-plugin-dir',
          dir,
          '--config',
          join(fixture.base, 'config.json'),
          '--devinfo-dir',
          join(fixture.base, 'devinfo'),
        ],
        { stdio: 'ignore' },
      );
      const report = await runConformance({ dir, resource, pid: child.pid as number });
      const failed = report.checks.filter((check) => check.status === 'fail');
      expect(failed).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.checks.length).toBeGreaterThan(5);
    },
    120_000,
  );
});
