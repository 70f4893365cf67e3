import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { runDraConformance } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine } from './testing/machines';

// "The GPU driver passes `kubelet-sim check --dra`": the DRA suite, strict, against `gpu-device-plugin serve
// --mode dra` run in this process on the NVIDIA fixture, restarted by the suite for `plugin-restart` and
// "rebooted" for `node-reboot` (a new boot ID in the fixture's procfs, the CDI directory emptied).
describe('kubelet-sim check --dra of gpu-device-plugin serve --mode dra', () => {
  let fixture: SysfsFixture;
  let base: string;
  let node: DraTestNode | undefined;

  beforeAll(() => {
    fixture = buildNvidiaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-gdc-'));
  });
  afterAll(async () => {
    await node?.stop();
    fixture.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, plugin restart, node reboot and the standard PCI attributes included', async () => {
    // The default device-list strategy (envvar): through DRA the device nodes are in the CDI spec all the
    // same, so the CDI checks find them. MIG strategy single (the default is none), so MIG devices are checked.
    const config = join(base, 'gpu.yaml');
    writeFileSync(config, 'nvidia:\n  migStrategy: single\n');
    node = createDraTestNode({
      plugin: gpuPlugin,
      dir: base,
      flags: [...rootFlags(fixture), '--config', config, '--poll-interval', '1h'],
      procRoot: fixture.procRoot,
    });

    const report = await runDraConformance({
      driver: 'gpu.kdp.dev',
      nodeName: 'node-g',
      strict: true,
      devRoot: fixture.devRoot,
      ...node.suite,
    });

    const notPassed = report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.reason}`]));
    if (notPassed.length > 0) process.stderr.write(node.stderr());
    expect(notPassed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.id === 'standard-attributes')?.reason).toBe(
      '5 PCI device(s) with both attributes',
    );
    // After the restart the claim has the device and the CDI ID it had (its device's: nodes and env).
    const reasonOf = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.reason;
    expect(reasonOf('plugin-restart')).toMatch(
      /^node-g\/nvidia\.com\/gpu\/\S+ \[gpu\.kdp\.dev\/claim=\S+\]$/,
    );
    expect(reasonOf('plugin-restart')).toBe(reasonOf('prepare-idempotent'));
    // After the reboot: prepared again (the checkpoint of the other boot discarded), the same devices and CDI IDs.
    expect(reasonOf('node-reboot')).toBe(`${reasonOf('prepare-idempotent')}, CDI specs written again`);
    expect(node.stderr()).toMatch(/the node rebooted since the checkpoint was written/);
  }, 120_000);
});
