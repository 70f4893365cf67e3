import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { programmingConfig, writeFakeProgrammer } from './fake-programmer.fixture';
import { createFpgaFixture, IF_ID, NLB0, NLB3, type FpgaFixture } from './fpga-sysfs.fixture';
import { buildPluginBundle, spawnServe } from './plugin-binary.fixture';

let build: ReturnType<typeof buildPluginBundle>;
beforeAll(() => (build = buildPluginBundle()), 60_000);
afterAll(() => build.remove());

/** Runs the conformance suite against `fpga-device-plugin serve` on `fx` for one resource, SIGTERM included. */
async function conformance(fx: FpgaFixture, resource: string, config: string): Promise<void> {
  const dir = join(fx.base, 'dp');
  mkdirSync(dir);
  const file = join(fx.base, 'fpga.yaml');
  writeFileSync(file, config);
  const plugin = spawnServe(build.bundle, {
    sysfsRoot: fx.root,
    devRoot: fx.devRoot,
    devicePluginDir: dir,
    config: file,
  });
  const exited = once(plugin.child, 'exit');
  try {
    const report = await runConformance({
      dir,
      resource,
      pid: plugin.child.pid ?? 0,
      restarts: 1,
      registrationTimeoutMs: 30_000,
    });
    const failed = report.checks.filter((c) => c.status === 'fail');
    // On failure, show what the plugin logged (its stderr) beside the failed checks.
    expect({ failed, log: failed.length === 0 ? '' : plugin.stderr() }).toEqual({ failed: [], log: '' });
    expect(report).toMatchObject({ ok: true, resource });
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith('fpga.intel.com'))).toEqual([]);
  } finally {
    await plugin.stop();
  }
}

describe('kubelet-sim conformance of fpga-device-plugin serve', () => {
  let fx: FpgaFixture;
  beforeEach(() => {
    fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
  });
  afterEach(() => fx.remove());

  it('af mode passes', async () => {
    await conformance(
      fx,
      'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
      'mode: af\n',
    );
  }, 120_000);

  it('region mode with a programming rule (PreStartContainer) passes', async () => {
    const fake = writeFakeProgrammer(fx, NLB3);
    const port0 = join(fx.root, fx.pciDir('0000:81:00.0'), 'fpga_region/region0/dfl-port.0/afu_id');
    const config = programmingConfig(fake, port0, NLB0);
    await conformance(fx, `fpga.intel.com/region-${IF_ID}`, config);
  }, 120_000);
});
