import fc from 'fast-check';
import { runPluginCommand } from '@kdp/core/testing';
import {
  fuzzDiscoverConfig,
  fuzzDiscoverScan,
  fuzzParameters,
  type FuzzMachine,
  type SysfsFixture,
} from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from './testing/machines';

/** `discover --output json` on a machine: sysfs, procfs (/proc/driver/nvidia) and /dev. */
const discover = (machine: FuzzMachine, extra: readonly string[] = []) =>
  runPluginCommand(gpuPlugin, [
    'discover',
    ...['--output', 'json', '--log-level', 'error', ...extra],
    ...['--sysfs-root', machine.root, '--proc-root', machine.procRoot, '--dev-root', machine.devRoot],
  ]);

describe('gpu-device-plugin discover under fuzzing', () => {
  let machines: SysfsFixture[];
  beforeAll(() => (machines = [buildNvidiaMachine(), buildAmdMachine(), buildIntelMachine()]));
  afterAll(() => machines.forEach((machine) => machine.remove()));

  it('NVIDIA, AMD and Intel machines with corrupted sysfs, procfs and /dev: exit 0, well-formed devices, nothing read or written outside the roots', async () => {
    const report = await fuzzDiscoverScan(fc, {
      templates: machines,
      roots: ['sys', 'proc', 'dev'],
      discover: (machine) => discover(machine),
      ...fuzzParameters({ seed: 1801, numRuns: 100 }),
    });
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
  }, 120_000);

  it('hostile --config files: exit 0, or exit 2 naming the file and the field; never a crash', async () => {
    const report = await fuzzDiscoverConfig(fc, {
      template: machines[0] as SysfsFixture,
      validConfigs: [
        {
          resourceNames: { nvidia: 'nvidia.com/gpu', nvidiaMig: 'nvidia.com/mig' },
          splitByModel: true,
          modelResourceNames: { 'NVIDIA H100 80GB HBM3': 'nvidia.com/h100' },
          nvidia: { deviceListStrategy: ['envvar', 'cdi'], passDeviceSpecs: true },
          sharing: { replicas: 2, failRequestsGreaterThanOne: true },
          health: { nvml: 'off', ignoredXids: [13, 31], xidHoldSeconds: 300 },
        },
      ],
      discover: (machine, config) => discover(machine, ['--config', config]),
      ...fuzzParameters({ seed: 1811, numRuns: 60 }),
    });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 120_000);
});
