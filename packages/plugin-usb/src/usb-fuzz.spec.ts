import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { runPluginCommand } from '@kdp/core/testing';
import {
  ESCAPE_LINK,
  fuzzDiscoverConfig,
  fuzzDiscoverScan,
  fuzzParameters,
  type FuzzMachine,
} from '@kdp/topology/testing';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

/** `discover --output json` on a machine: sysfs and /dev (procfs is never read). */
const discover = (machine: FuzzMachine, config: string) =>
  runPluginCommand(usbPlugin, [
    'discover',
    ...['--output', 'json', '--log-level', 'error', '--config', config],
    ...['--sysfs-root', machine.root, '--dev-root', machine.devRoot],
  ]);

describe('usb-device-plugin discover under fuzzing', () => {
  let usb: UsbFixture;
  let sample: string;
  beforeAll(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    sample = join(usb.sys.base, 'usb.yaml');
    writeFileSync(sample, SAMPLE_CONFIG);
  });
  afterAll(() => usb.remove());

  it('the sample machine with corrupted sysfs and /dev: exit 0, well-formed devices, nothing read or written outside the roots', async () => {
    const report = await fuzzDiscoverScan(fc, {
      templates: [usb.sys],
      roots: ['sys', 'dev'],
      discover: (machine) => discover(machine, sample),
      ...fuzzParameters({ seed: 1804, numRuns: 100 }),
    });
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
  }, 120_000);

  it('hostile configs, device globs leading out of /dev included: exit 0, or exit 2 naming the file and the field', async () => {
    const report = await fuzzDiscoverConfig(fc, {
      template: usb.sys,
      validConfigs: [
        {
          resources: [
            { name: 'example.com/ftdi', match: [{ vendor: '0403', product: '6001' }] },
            {
              name: 'example.com/keyboard',
              match: [{ vendor: '046d', productName: '*Keyboard' }],
              nodes: ['hidraw'],
            },
            { name: 'example.com/ttys', paths: ['/dev/ttyUSB*', `/dev/${ESCAPE_LINK}/*`], count: 2 },
          ],
          domain: 'squat.ai',
          devices: [
            {
              name: 'serial',
              groups: [
                { paths: [{ path: '/dev/ttyUSB*' }, { path: `/dev/${ESCAPE_LINK}/bait/*`, optional: true }] },
              ],
            },
            { name: 'ftdi', groups: [{ usb: [{ vendor: '0403', product: '6001' }], count: 1 }] },
          ],
          usbLibrary: 'off',
        },
      ],
      hostileStrings: [
        '/dev/../..',
        '/dev/./../etc/*',
        '/dev/*/../../*',
        `/dev/${ESCAPE_LINK}`,
        '0x',
        '0xffffffffff',
      ],
      discover,
      ...fuzzParameters({ seed: 1814, numRuns: 60 }),
    });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 120_000);
});
