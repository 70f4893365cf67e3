import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { runDraConformance } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { infinibandPlugin } from './plugin';
import { createRdmaMachine } from './testing/rdma-machine';

// `kubelet-sim check --dra` of `infiniband-device-plugin serve --mode dra` (exclusive mode) on the fixture
// machine, run in this process.
describe('kubelet-sim check --dra of infiniband-device-plugin serve --mode dra', () => {
  let fx: SysfsFixture;
  let base: string;
  let node: DraTestNode | undefined;

  beforeAll(() => {
    fx = createRdmaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-idc-'));
  });
  afterAll(async () => {
    await node?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included', async () => {
    // The plugin takes no --proc-root: the node's boot ID, which the suite's reboot changes, is in its own procfs.
    node = createDraTestNode({
      plugin: infinibandPlugin,
      dir: base,
      flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--poll-interval', '1h'],
    });

    const report = await runDraConformance({
      driver: 'infiniband.kdp.dev',
      nodeName: 'node-i',
      strict: true,
      devRoot: fx.devRoot,
      ...node.suite,
    });

    // Every check passes, strict; a failed one shows its reason and the driver's log.
    const notPassed = report.checks.flatMap((c) =>
      c.status === 'pass' ? [] : [`${c.id}: ${c.status}${c.status === 'fail' ? ` (${c.reason})` : ''}`],
    );
    if (report.checks.some((c) => c.status === 'fail')) process.stderr.write(node.stderr());
    expect(notPassed).toEqual([]);
    // After the reboot the claim has what it had, its CDI specs written again.
    const reasonOf = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.reason;
    expect(reasonOf('node-reboot')).toBe(`${reasonOf('prepare-idempotent')}, CDI specs written again`);
    expect(report.ok).toBe(true);
  }, 120_000);
});
