import fc from 'fast-check';
import { runPluginCommand } from '@kdp/core/testing';
import {
  fuzzDiscoverConfig,
  fuzzDiscoverScan,
  fuzzParameters,
  type FuzzMachine,
  type SysfsFixture,
} from '@kdp/topology/testing';
import { infinibandPlugin } from './plugin';
import { createRdmaMachine, UPSTREAM_CONFIG_JSON } from './testing/rdma-machine';

/** `discover --output json` on a machine: sysfs and /dev (procfs is never read). */
const discover = (machine: FuzzMachine, extra: readonly string[] = []) =>
  runPluginCommand(infinibandPlugin, [
    'discover',
    ...['--output', 'json', '--log-level', 'error', ...extra],
    ...['--sysfs-root', machine.root, '--dev-root', machine.devRoot],
  ]);

describe('infiniband-device-plugin discover under fuzzing', () => {
  let machine: SysfsFixture;
  beforeAll(() => (machine = createRdmaMachine()));
  afterAll(() => machine.remove());

  it('mixed HCAs with corrupted sysfs and /dev: exit 0, well-formed devices, nothing read or written outside the roots', async () => {
    const report = await fuzzDiscoverScan(fc, {
      templates: [machine],
      roots: ['sys', 'dev'],
      discover: (copy) => discover(copy),
      ...fuzzParameters({ seed: 1803, numRuns: 100 }),
    });
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
  }, 120_000);

  it('hostile k8s-rdma-shared-dev-plugin configs: exit 0 (unknown keys warned about), or exit 2 naming the file and the field', async () => {
    const report = await fuzzDiscoverConfig(fc, {
      template: machine,
      validConfigs: [
        JSON.parse(UPSTREAM_CONFIG_JSON) as unknown,
        {
          configList: [
            {
              resourceName: 'hca',
              mode: 'exclusive',
              selectors: { drivers: ['mlx5_core'], linkTypes: ['infiniband'], ifNames: ['ib0'] },
            },
          ],
        },
      ],
      discover: (copy, config) => discover(copy, ['--config', config]),
      ...fuzzParameters({ seed: 1813, numRuns: 60 }),
    });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 120_000);
});
