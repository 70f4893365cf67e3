import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

// `kubelet-sim check` for two pools (vfio-pci and RDMA): the conformance suite against the real bundle's `serve`.

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);
afterAll(() => bundle.remove());

describe('kubelet-sim conformance of sriov-device-plugin serve', () => {
  let plugin: PluginProcess | undefined;
  let fixture: SysfsFixture;
  beforeEach(() => {
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
    writeFileSync(join(fixture.base, 'config.json'), UPSTREAM_CONFIG);
  });
  afterEach(async () => {
    const running = plugin;
    plugin = undefined;
    await running?.kill();
    fixture.remove();
  });

  it.each(['intel.com/intel_sriov_dpdk', 'nvidia.com/mlnx_sriov_rdma'])(
    'passes every check for %s, SIGTERM included',
    async (resource) => {
      const dir = join(fixture.base, 'dp');
      mkdirSync(dir, { mode: 0o750 });
      // The plugin starts first and retries Register until the suite's simulated kubelet serves kubelet.sock.
      plugin = spawnPlugin(bundle.path, [
        'serve',
        ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
        ...['--device-plugin-dir', dir, '--config', join(fixture.base, 'config.json')],
        ...['--devinfo-dir', join(fixture.base, 'devinfo')],
      ]);
      const { pid } = plugin.child;
      if (pid === undefined) throw new Error(`sriov-device-plugin did not start: ${plugin.stderr()}`);
      // Strict: every recommended practice too. Only PreStartContainer does not apply (not required).
      const report = await runConformance({
        dir,
        resource,
        pid,
        registrationTimeoutMs: 30_000,
        strict: true,
      });
      const failures = report.checks.flatMap((check) => (check.status === 'fail' ? [check] : []));
      // The plugin's own log explains a failed check: shown only then.
      expect([failures, failures.length === 0 ? '' : plugin.stderr()]).toEqual([[], '']);
      expect(report.ok).toBe(true);
      expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([
        'pre-start-container: skip',
      ]);
      expect(await plugin.exited).toEqual([0, null]);
    },
    120_000,
  );
});
