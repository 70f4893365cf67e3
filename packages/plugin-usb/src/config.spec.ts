import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isConfigError, validateConfigValue } from '@kdp/core';
import { runPluginCommand } from '@kdp/core/testing';
import { usbConfigSchema } from './config';
import { usbPlugin } from './plugin';
import { configuredResources } from './resources/configured-resources';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

describe('usb configuration', () => {
  let usb: UsbFixture;
  beforeEach(() => (usb = createUsbFixture()));
  afterEach(() => usb.remove());

  const serveWith = async (name: string, text: string) => {
    const file = join(usb.sys.base, name);
    writeFileSync(file, text);
    return runPluginCommand(usbPlugin, [
      'serve',
      '--sysfs-root',
      usb.sys.root,
      '--device-plugin-dir',
      usb.sys.base,
      '--config',
      file,
    ]);
  };

  it.each([
    [
      'a bad resource name',
      'resources:\n  - name: zigbee\n    match: [{ vendor: "10c4" }]\n',
      'resources[0].name: the ResourceName "zigbee" is invalid',
    ],
    [
      'an empty match rule',
      'resources:\n  - name: example.com/x\n    match: [{}]\n',
      'resources[0].match[0]: a match rule needs at least one of',
    ],
    [
      'both match and paths',
      'resources:\n  - name: example.com/x\n    match: [{ vendor: "10c4" }]\n    paths: [/dev/ttyUSB*]\n',
      'resources[0]: give exactly one of match (USB devices) and paths (device-path globs)',
    ],
    [
      'a zero count',
      'resources:\n  - name: example.com/x\n    match: [{ vendor: "10c4" }]\n    count: 0\n',
      'resources[0].count: ',
    ],
    [
      'a path outside /dev',
      'resources:\n  - name: example.com/x\n    paths: [/etc/passwd]\n',
      'resources[0].paths[0]: must be a path under /dev/',
    ],
    [
      'a misspelt key',
      'resources:\n  - name: example.com/x\n    match: [{ vendorr: "10c4" }]\n',
      'resources[0].match[0]',
    ],
    [
      'the removed pollIntervalMs',
      'pollIntervalMs: 1000\n',
      'pollIntervalMs: removed; use the --poll-interval flag (e.g. 1s)',
    ],
    [
      'a duplicate resource',
      'domain: example.com\nresources:\n  - name: example.com/x\n    match: [{ vendor: "10c4" }]\ndevices:\n  - name: x\n    groups: [{ usb: [{ vendor: "10c4", product: "ea60" }] }]\n',
      'devices[0].name: resource example.com/x is already defined at resources.0.name',
    ],
  ])('%s stops serve with exit 2 naming file, field and problem', async (_, text, problem) => {
    const run = await serveWith('bad.yaml', text);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`usb-device-plugin: ${join(usb.sys.base, 'bad.yaml')}: ${problem}`);
    expect(run.stdout).toBe('');
  });

  it('reads IDs written as YAML numbers or with 0x as the four hex digits', () => {
    const config = usbConfigSchema.parse({
      resources: [{ name: 'example.com/x', match: [{ vendor: 403, product: '0x6001', class: 2 }] }],
    });
    expect(config.resources[0]?.match?.[0]).toEqual({ vendor: '0403', product: '6001', class: '02' });
  });

  it("maps generic-device-plugin's format: <domain>/<name>, usb specs as exact rules, paths with its defaults", () => {
    const config = usbConfigSchema.parse({
      devices: [
        { name: 'serial', groups: [{ paths: [{ path: '/dev/ttyUSB*' }, { path: '/dev/ttyACM*' }] }] },
        {
          name: 'coral',
          groups: [
            {
              usb: [
                { vendor: '1a6e', product: '089a' },
                { vendor: '18d1', product: '9302' },
              ],
              count: 2,
            },
          ],
        },
        { name: 'stick', groups: [{ usb: [{ vendor: '10c4', product: 'ea60', serial: 'a*b' }] }] },
      ],
    });
    expect(configuredResources(config)).toEqual([
      {
        name: 'squat.ai/serial',
        groups: [
          {
            kind: 'paths',
            count: 1,
            ids: 'kdp',
            paths: [
              {
                path: '/dev/ttyUSB*',
                permissions: 'mrw',
                type: 'Device',
                readOnly: false,
                limit: 1,
                optional: false,
              },
              {
                path: '/dev/ttyACM*',
                permissions: 'mrw',
                type: 'Device',
                readOnly: false,
                limit: 1,
                optional: false,
              },
            ],
          },
        ],
      },
      {
        name: 'squat.ai/coral',
        groups: [
          {
            kind: 'usb',
            count: 2,
            permissions: 'rw',
            nodes: ['usb', 'tty', 'hidraw', 'video', 'input'],
            rules: [
              { vendor: '1a6e', product: '089a' },
              { vendor: '18d1', product: '9302' },
            ],
          },
        ],
      },
      {
        name: 'squat.ai/stick',
        groups: [expect.objectContaining({ rules: [{ vendor: '10c4', product: 'ea60', serial: 'a\\*b' }] })],
      },
    ]);
  });

  it('never throws on garbage, only reports issues', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          validateConfigValue('x.yaml', value, usbConfigSchema);
        } catch (error) {
          expect(isConfigError(error)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
