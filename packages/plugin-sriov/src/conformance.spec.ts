import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { buildPluginBundle, spawnServe, stopProcess } from './plugin-process.fixture';
import { addTwoPfNode, UPSTREAM_CONFIG } from './sriov-node.fixture';

describe('kubelet-sim conformance of sriov-device-plugin serve', () => {
  let fixture: SysfsFixture;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    buildPluginBundle();
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
    writeFileSync(join(fixture.base, 'config.json'), UPSTREAM_CONFIG);
  }, 60_000);

  afterAll(async () => {
    await stopProcess(child, 'SIGKILL');
    fixture.remove();
  });

  it.each(['intel.com/intel_sriov_dpdk', 'nvidia.com/mlnx_sriov_rdma'])(
    'passes every check for %s, SIGTERM included',
    async (resource) => {
      const dir = join(fixture.base, resource.replace(/\W/g, ''));
      mkdirSync(dir, { mode: 0o750 });
      // The plugin starts first and retries Register until the suite's simulated kubelet serves kubelet.sock.
      child = spawnServe(fixture, [
        '--device-plugin-dir',
        dir,
        '--config',
        join(fixture.base, 'config.json'),
        '--devinfo-dir',
        join(fixture.base, 'devinfo'),
      ]);
      const report = await runConformance({ dir, resource, pid: child.pid as number });
      const failed = report.checks.filter((check) => check.status === 'fail');
      expect(failed).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.checks.length).toBeGreaterThan(5);
    },
    120_000,
  );
});
