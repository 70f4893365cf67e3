import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { runDraConformance } from '@kdp/kubelet-sim';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3, type FpgaFixture } from './testing/create-fpga-fixture';
import { programmingConfig, writeFakeProgrammer } from './testing/fake-programmer';

// `kubelet-sim check --dra` of `fpga-device-plugin serve --mode dra` in region mode with a programming rule, run
// in this process on two DFL cards: the rule's programming (PreStartContainer in the device-plugin mode) is done
// by NodePrepareResources.
describe('kubelet-sim check --dra of fpga-device-plugin serve --mode dra', () => {
  let fx: FpgaFixture;
  let base: string;
  let node: DraTestNode | undefined;

  beforeAll(() => {
    fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB3 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    base = mkdtempSync(join(tmpdir(), 'kdp-fdc-'));
  });
  afterAll(async () => {
    await node?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included, and prepare programs the region with the rule', async () => {
    const afuFile = join(fx.root, fx.pciDir('0000:81:00.0'), 'fpga_region/region0/dfl-port.0/afu_id');
    const fake = writeFakeProgrammer(fx, NLB0);
    const config = join(base, 'fpga.yaml');
    // The scheduler checks allocate either card: a wrapper finds the allocated port's afu_id from the rule's
    // `{port}` and runs the fake programmer on it.
    const wrapper = join(fx.base, 'program-port');
    fx.writeScript(
      wrapper,
      [
        '#!/bin/sh',
        `afu=$(echo '${fx.root}'/class/fpga_region/region*/"$(basename "$1")"/afu_id)`,
        `exec '${fake.program}' "$afu" "$2"`,
        '',
      ].join('\n'),
    );
    writeFileSync(config, programmingConfig({ ...fake, program: wrapper }, '"{port}"', NLB0));
    // The node's procfs is its own (the plugin has no --proc-root): the suite's reboot changes its boot ID.
    node = createDraTestNode({
      plugin: fpgaPlugin,
      dir: base,
      flags: [
        ...['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--config', config],
        ...['--poll-interval', '1h'],
      ],
    });

    const report = await runDraConformance({
      driver: 'fpga.kdp.dev',
      nodeName: 'node-f',
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
    // The rule ran in NodePrepareResources: the fake programmer loaded NLB0 into the region's port.
    expect(fake.runs().length).toBeGreaterThan(0);
    expect(readFileSync(afuFile, 'utf8').trim()).toBe(NLB0);
  }, 120_000);
});
