import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { runDraConformance } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

// `kubelet-sim check --dra` of `sriov-device-plugin serve --mode dra` on the two-PF node with the upstream
// config, run in this process: NodePrepareResources writes the Multus device-info file, as Allocate does.
describe('kubelet-sim check --dra of sriov-device-plugin serve --mode dra', () => {
  let fx: SysfsFixture;
  let base: string;
  let node: DraTestNode | undefined;

  beforeAll(() => {
    fx = createSysfsFixture();
    addTwoPfNode(fx);
    base = mkdtempSync(join(tmpdir(), 'kdp-sdc-'));
  });
  afterAll(async () => {
    await node?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included, and prepare writes the device-info file', async () => {
    const config = join(base, 'config.json');
    writeFileSync(config, UPSTREAM_CONFIG);
    const devinfo = join(base, 'devinfo');
    let infoFiles: string[] = [];
    // The node's boot ID is in the fixture's procfs (--proc-root); the suite's reboot changes it.
    node = createDraTestNode({
      plugin: sriovPlugin,
      dir: base,
      flags: [
        ...['--sysfs-root', fx.root, '--proc-root', fx.procRoot, '--dev-root', fx.devRoot],
        ...['--poll-interval', '1h', '--config', config, '--devinfo-dir', devinfo],
      ],
      procRoot: fx.procRoot,
    });

    const report = await runDraConformance({
      driver: 'sriov.kdp.dev',
      nodeName: 'node-s',
      strict: true,
      // The Multus device-info files there once the claim is prepared (a stop removes them, as in device-plugin mode).
      onCheck: (check) => {
        if (check.id === 'prepare') infoFiles = readdirSync(devinfo, { recursive: true }).map(String);
      },
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
    // NodePrepareResources wrote the prepared VF's device-info file (the afterAllocate hook of Allocate).
    expect(infoFiles.filter((name) => name.endsWith('.json'))).toHaveLength(1);
  }, 120_000);
});
