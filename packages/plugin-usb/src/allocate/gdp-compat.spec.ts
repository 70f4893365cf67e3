import type { PluginDevice } from '@kdp/core';
import { createHost } from '@kdp/topology';
import { usbConfigSchema } from '../config';
import { configuredResources, pathPatterns } from '../resources/configured-resources';
import type { DevicePayload } from '../resources/device-payload';
import { planResources } from '../resources/plan-resources';
import { scanUsbHost } from '../scan/scan-usb-host';
import { defined } from '../testing/defined';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';
import { buildAllocation } from './build-allocation';

/**
 * What squat/generic-device-plugin (deviceplugin/usb.go and path.go at 0.1.0) returns, written out by hand from
 * its source: a USB group is ONE device holding `/dev/bus/usb/BBB/DDD` of every match with permissions `rw`; a
 * path group is one device per glob match with the path as both host and container path and permissions `mrw`
 * (or `mountPath`, or a bind mount for `type: Mount`).
 */
describe("Allocate compared with generic-device-plugin's for the same devices and configuration", () => {
  let usb: UsbFixture;
  beforeEach(() => {
    usb = createUsbFixture();
    usb.addRootHub(1);
    usb.addDevice({
      portPath: '1-1',
      vendor: '0403',
      product: '6001',
      devnum: 5,
      serial: 'A1',
      interfaces: [{ class: 'ff', tty: 'ttyUSB0' }],
    });
    usb.addDevice({
      portPath: '1-2',
      vendor: '0403',
      product: '6001',
      devnum: 6,
      serial: 'A2',
      interfaces: [{ class: 'ff', tty: 'ttyUSB1' }],
    });
    usb.sys.mkdir('../dev/snd');
  });
  afterEach(() => usb.remove());

  const inventory = async (input: unknown) => {
    const config = usbConfigSchema.parse(input);
    const host = createHost({ sysfsRoot: usb.sys.root, devRoot: usb.sys.devRoot });
    const scan = await scanUsbHost({ host, patterns: pathPatterns(configuredResources(config)) });
    return planResources(config, scan, async () => ({})).resources;
  };
  const allocate = (resource: string, devices: readonly PluginDevice<DevicePayload>[]) =>
    buildAllocation(
      resource,
      devices.map((d) => defined(d.payload)),
    );

  it('usb group: the same /dev/bus/usb specs, but one device per physical device plus its tty node', async () => {
    const [resource] = await inventory({
      devices: [{ name: 'ftdi', groups: [{ usb: [{ vendor: '0403', product: '6001' }] }] }],
    });
    const gdp = [
      { hostPath: '/dev/bus/usb/001/005', containerPath: '/dev/bus/usb/001/005', permissions: 'rw' },
      { hostPath: '/dev/bus/usb/001/006', containerPath: '/dev/bus/usb/001/006', permissions: 'rw' },
    ];
    expect(defined(resource).name).toBe('squat.ai/ftdi');
    // GDP: one meta-device with both nodes. Here: two devices; asking for both gives GDP's specs, plus the ttys.
    expect(defined(resource).devices.map((d) => d.id)).toEqual(['A1', 'A2']);
    const both = allocate(defined(resource).name, defined(resource).devices);
    expect(both.devices).toEqual(expect.arrayContaining(gdp.map((s) => expect.objectContaining(s))));
    expect(both.devices?.map((d) => d.hostPath)).toEqual([
      '/dev/bus/usb/001/005',
      '/dev/ttyUSB0',
      '/dev/bus/usb/001/006',
      '/dev/ttyUSB1',
    ]);
  });

  it('path group: identical specs, one device per match, mrw by default, mountPath and Mount honoured', async () => {
    const [serial, renamed] = await inventory({
      devices: [
        { name: 'serial', groups: [{ paths: [{ path: '/dev/ttyUSB*' }] }] },
        {
          name: 'renamed',
          groups: [
            {
              paths: [
                { path: '/dev/ttyUSB1', mountPath: '/dev/ttyS9', permissions: 'rw' },
                { path: '/dev/snd', type: 'Mount', readOnly: true },
              ],
            },
          ],
        },
      ],
    });
    expect(defined(serial).devices.map((d) => d.id)).toEqual(['ttyUSB0', 'ttyUSB1']);
    expect(allocate(defined(serial).name, [defined(defined(serial).devices[0])]).devices).toEqual([
      { hostPath: '/dev/ttyUSB0', containerPath: '/dev/ttyUSB0', permissions: 'mrw' },
    ]);
    const one = allocate(defined(renamed).name, defined(renamed).devices);
    expect(one.devices).toEqual([
      { hostPath: '/dev/ttyUSB1', containerPath: '/dev/ttyS9', permissions: 'rw' },
    ]);
    expect(one.mounts).toEqual([{ hostPath: '/dev/snd', containerPath: '/dev/snd', readOnly: true }]);
  });

  it('device numbers from 10 up: the node is named by the decimal busnum and devnum, zero-padded', async () => {
    usb.replug('1-2', 10);
    const [resource] = await inventory({
      resources: [{ name: 'example.com/ftdi', match: [{ serial: 'A2' }] }],
    });
    expect(allocate(defined(resource).name, defined(resource).devices).devices?.[0]?.hostPath).toBe(
      '/dev/bus/usb/001/010',
    );
  });
});
