import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle } from '@kdp/kubelet-sim/testing';
import { createFpgaFixture, IF_ID, NLB0, NLB3, type FpgaFixture } from './testing/create-fpga-fixture';
import { programmingConfig, writeFakeProgrammer } from './testing/fake-programmer';

// `kubelet-sim check` in af mode and in region mode with PreStartContainer, against the real bundle's `serve`.

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);
afterAll(() => bundle.remove());

/**
 * Serves `config` on a machine with two DFL cards and runs the conformance suite for `resource`, SIGTERM
 * included, strict; `skipped` are the checks that do not apply.
 */
async function conformance(
  resource: string,
  config: (fx: FpgaFixture) => string,
  skipped: string[],
): Promise<void> {
  const fx = createFpgaFixture();
  fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
  fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
  const dir = join(fx.base, 'dp');
  mkdirSync(dir);
  const file = join(fx.base, 'fpga.yaml');
  writeFileSync(file, config(fx));
  const roots = ['--sysfs-root', fx.root, '--dev-root', fx.devRoot];
  const plugin = spawnPlugin(bundle.path, ['serve', ...roots, '--device-plugin-dir', dir, '--config', file]);
  try {
    const pid = plugin.child.pid ?? 0;
    const report = await runConformance({
      dir,
      resource,
      pid,
      restarts: 1,
      registrationTimeoutMs: 30_000,
      strict: true,
    });
    const failures = report.checks.flatMap((check) => (check.status === 'fail' ? [check] : []));
    // On failure, show what the plugin logged (its stderr) beside the failed checks.
    expect({ failures, log: failures.length > 0 ? plugin.stderr() : '' }).toEqual({ failures: [], log: '' });
    expect(report).toMatchObject({ ok: true, resource });
    expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual(
      skipped,
    );
    expect(await plugin.exited).toEqual([0, null]);
    expect(readdirSync(dir).filter((name) => name.startsWith('fpga.intel.com'))).toEqual([]);
  } finally {
    await plugin.kill();
    fx.remove();
  }
}

describe('kubelet-sim conformance of fpga-device-plugin serve', () => {
  it('af mode passes', async () => {
    await conformance(
      'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
      () => 'mode: af\n',
      ['pre-start-container: skip'],
    );
  }, 120_000);

  it('region mode with a programming rule (PreStartContainer) passes', async () => {
    await conformance(
      `fpga.intel.com/region-${IF_ID}`,
      (fx) => {
        const port0 = join(fx.root, fx.pciDir('0000:81:00.0'), 'fpga_region/region0/dfl-port.0/afu_id');
        return programmingConfig(writeFakeProgrammer(fx, NLB3), port0, NLB0);
      },
      [],
    );
  }, 120_000);
});
