import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { runPluginCommand } from '@kdp/core/testing';
import {
  createSysfsFixture,
  fuzzDiscoverConfig,
  fuzzDiscoverScan,
  fuzzParameters,
  type FuzzMachine,
  type SysfsFixture,
} from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

/** `discover --output json` on a machine: sysfs, procfs (the default route) and /dev. */
const discover = (machine: FuzzMachine, config: string) =>
  runPluginCommand(sriovPlugin, [
    'discover',
    ...['--output', 'json', '--log-level', 'error', '--config', config],
    ...['--sysfs-root', machine.root, '--proc-root', machine.procRoot, '--dev-root', machine.devRoot],
  ]);

describe('sriov-device-plugin discover under fuzzing', () => {
  let node: SysfsFixture;
  let upstream: string;
  beforeAll(() => {
    node = createSysfsFixture();
    addTwoPfNode(node);
    upstream = join(node.base, 'config.json');
    writeFileSync(upstream, UPSTREAM_CONFIG);
  });
  afterAll(() => node.remove());

  it('two PFs with VFs, corrupted sysfs, procfs and /dev: exit 0, well-formed devices, nothing read or written outside the roots', async () => {
    const report = await fuzzDiscoverScan(fc, {
      templates: [node],
      roots: ['sys', 'proc', 'dev'],
      discover: (machine) => discover(machine, upstream),
      ...fuzzParameters({ seed: 1802, numRuns: 100 }),
    });
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
  }, 120_000);

  it('hostile upstream-format configs: exit 0 (unknown keys warned about), or exit 2 naming the file and the field', async () => {
    const report = await fuzzDiscoverConfig(fc, {
      template: node,
      validConfigs: [JSON.parse(UPSTREAM_CONFIG) as unknown],
      hostileStrings: ['ens2f0#0-4294967296', 'ens2f0#-1', 'ens2f0#7-3', '#', '../../../..', '0000:d8:00.0#'],
      discover,
      ...fuzzParameters({ seed: 1812, numRuns: 60 }),
    });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 120_000);
});
