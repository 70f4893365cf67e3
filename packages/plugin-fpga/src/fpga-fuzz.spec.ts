import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { runPluginCommand } from '@kdp/core/testing';
import {
  fuzzDiscoverConfig,
  fuzzDiscoverScan,
  fuzzParameters,
  type FuzzMachine,
} from '@kdp/topology/testing';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3, U200, type FpgaFixture } from './testing/create-fpga-fixture';

/** `discover --output json` on a machine: sysfs and /dev (procfs is never read). */
const discover = (machine: FuzzMachine, extra: readonly string[] = []) =>
  runPluginCommand(fpgaPlugin, [
    'discover',
    ...['--output', 'json', '--log-level', 'error', ...extra],
    ...['--sysfs-root', machine.root, '--dev-root', machine.devRoot],
  ]);

describe('fpga-device-plugin discover under fuzzing', () => {
  let dfl: FpgaFixture;
  let opae: FpgaFixture;
  beforeAll(() => {
    // DFL cards (a PF with its VF, a second PF with an error bit set) beside an Alveo card; OPAE cards alone.
    dfl = createFpgaFixture();
    dfl.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    dfl.addDflCard({ address: '0000:81:00.1', index: 1, numaNode: 1, afuId: NLB3, physfn: '0000:81:00.0' });
    dfl.addDflCard({ address: '0000:82:00.0', index: 2, interfaceId: IF_ID, afuId: NLB0, errors: '0x10' });
    dfl.addAlveoCard(U200);
    opae = createFpgaFixture();
    opae.addOpaeCard({ address: '0000:5e:00.0', index: 0, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    opae.addOpaeCard({ address: '0000:5e:00.1', index: 1, afuId: NLB0, physfn: '0000:5e:00.0' });
  });
  afterAll(() => {
    dfl.remove();
    opae.remove();
  });

  it('DFL, OPAE and Alveo cards with corrupted sysfs and /dev: exit 0, well-formed devices, nothing read or written outside the roots', async () => {
    const report = await fuzzDiscoverScan(fc, {
      templates: [dfl, opae],
      roots: ['sys', 'dev'],
      discover: (machine) => discover(machine),
      ...fuzzParameters({ seed: 1805, numRuns: 100 }),
    });
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
  }, 120_000);

  it('hostile configs, bitstreams and programs outside bitstreamDir included: exit 0, or exit 2 naming the file and the field', async () => {
    const report = await fuzzDiscoverConfig(fc, {
      template: dfl,
      validConfigs: [
        {
          mode: 'region',
          bitstreamDir: '/srv/intel.com/fpga',
          amd: { includeManagement: true },
          programming: [
            {
              interfaceId: IF_ID,
              afuId: NLB0,
              command: ['/usr/bin/fpgaconf', '--segment', '{segment}', '{bitstream}'],
              bitstream: '/srv/intel.com/fpga/nlb0.gbs',
              timeoutMs: 20_000,
            },
          ],
        },
        { mode: 'af' },
      ],
      hostileStrings: [
        '/srv/intel.com/fpga/../../../etc/shadow',
        '{unknown}',
        '{bitstream',
        'af',
        'regiondevel',
      ],
      discover: (machine, config) => discover(machine, ['--config', config]),
      ...fuzzParameters({ seed: 1815, numRuns: 60 }),
    });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 120_000);

  it('refuses an empty programming command with exit 2 naming the field (the fuzz found it crashing with exit 1)', async () => {
    const file = join(dfl.base, 'empty-command.json');
    const rule = { interfaceId: IF_ID, afuId: NLB0, command: [], bitstream: '/srv/intel.com/fpga/nlb0.gbs' };
    writeFileSync(file, JSON.stringify({ mode: 'region', programming: [rule] }));
    const machine = { base: dfl.base, root: dfl.root, procRoot: dfl.procRoot, devRoot: dfl.devRoot };
    expect(await discover(machine, ['--config', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `fpga-device-plugin: ${file}: programming[0].command: Too small: expected array to have >=1 items\n`,
    });
  });
});
