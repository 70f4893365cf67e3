import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@kdp/topology';
import { usbConfigSchema } from '../config';
import { configuredResources, pathPatterns } from '../resources/configured-resources';
import { addSampleMachine } from '../testing/sample-machine';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';
import { createUsbScanCache } from './scan-usb-devices';
import { scanUsbHost } from './scan-usb-host';
import { usbChangeProbe } from './usb-change-probe';

describe('usbChangeProbe: what a poll tick compares', () => {
  let usb: UsbFixture;
  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
  });
  afterEach(() => usb.remove());

  /** Derives the probe from a scan (as the runtime does after each one) and returns a reader of it. */
  const probeAfterScan = async (config: unknown) => {
    const parsed = usbConfigSchema.parse(config);
    const resources = configuredResources(parsed);
    const host = createHost({ sysfsRoot: usb.sys.root, devRoot: usb.sys.devRoot });
    const scan = await scanUsbHost({ host, patterns: pathPatterns(resources), cache: createUsbScanCache() });
    const probe = usbChangeProbe(scan, resources);
    const list = (dir: string) => {
      try {
        return readdirSync(dir).join('/');
      } catch {
        return '-';
      }
    };
    const read = () =>
      [
        ...(probe.sysfs?.list ?? []).map((p) => list(join(usb.sys.root, p))),
        ...(probe.devfs?.list ?? []).map((p) => list(join(usb.sys.devRoot, p.slice('/dev/'.length)))),
      ].join('|');
    return { probe, read };
  };
  /** USB groups handing out every node kind (the default), like the sample configuration. */
  const sample = () => ({
    resources: [
      { name: 'example.com/serial', match: [{ class: 'ff' }] },
      { name: 'example.com/camera', match: [{ class: '0e' }], count: 2 },
    ],
  });

  it('lists the USB bus, the node classes handed out and /dev/bus/usb; reads nothing per device', async () => {
    const { probe } = await probeAfterScan(sample());
    expect(probe).toEqual({
      sysfs: { list: ['bus/usb/devices', 'class/tty', 'class/hidraw', 'class/video4linux', 'class/input'] },
      devfs: { list: ['/dev/bus/usb', '/dev/bus/usb/001', '/dev/bus/usb/002'] },
    });
    const tty = await probeAfterScan({
      resources: [{ name: 'example.com/s', match: [{ class: 'ff' }], nodes: ['tty'] }],
    });
    expect(tty.probe.sysfs?.list).toEqual(['bus/usb/devices', 'class/tty']);
  });

  it.each<[string, (usb: UsbFixture) => void]>([
    [
      'a device plugged before udev made its nodes',
      (u) => u.addDevice({ portPath: '1-4.3', vendor: '0403', product: '6001', devnum: 9, devNodes: false }),
    ],
    ['an unplug', (u) => u.removeDevice('1-4.2')],
    ['a replug between two ticks (same sysfs names, new device number)', (u) => u.replug('1-1', 40)],
    ['a tty bound late (a driver loaded after the plug)', (u) => u.bindNodes('1-4.1', 0, { tty: 'ttyUSB9' })],
  ])('sees %s', async (_, change) => {
    const { read } = await probeAfterScan(sample());
    const before = read();
    change(usb);
    expect(read()).not.toBe(before);
  });

  it('a replug that keeps every sysfs listing is still seen, through /dev/bus/usb', async () => {
    const { probe, read } = await probeAfterScan(sample());
    const sysfsOnly = () =>
      (probe.sysfs?.list ?? []).map((p) => readdirSync(join(usb.sys.root, p)).join('/')).join('|');
    const [sys, all] = [sysfsOnly(), read()];
    usb.replug('1-2', 50);
    expect(sysfsOnly()).toBe(sys);
    expect(read()).not.toBe(all);
  });

  it('path globs: lists the directory a glob expands in, or the nearest one that exists', async () => {
    const config = { resources: [{ name: 'example.com/by-id', paths: ['/dev/serial/by-id/*'] }] };
    const absent = await probeAfterScan(config);
    expect(absent.probe).toEqual({ sysfs: { list: [] }, devfs: { list: ['/dev'] } });
    const before = absent.read();
    usb.sys.addDevLink('/dev/serial/by-id/usb-FTDI-A50285BI', '../../ttyUSB0');
    expect(absent.read()).not.toBe(before);

    const present = await probeAfterScan(config);
    expect(present.probe.devfs?.list).toEqual(['/dev/serial/by-id']);
    const now = present.read();
    usb.sys.addDevLink('/dev/serial/by-id/usb-FTDI-A7042Z1Q', '../../ttyUSB1');
    expect(present.read()).not.toBe(now);
  });

  it('nothing more: attribute changes, unrelated /dev nodes and, without USB groups, USB plugs are not compared', async () => {
    const { read } = await probeAfterScan(sample());
    const before = read();
    usb.sys.write('bus/usb/devices/1-1/power/autosuspend', '2\n');
    usb.sys.write('bus/usb/devices/1-1/product', 'renamed\n');
    usb.sys.addDevNode('/dev/sda', 8, 0);
    expect(read()).toBe(before);

    usb.sys.mkdir('../dev/serial/by-id');
    const none = await probeAfterScan({
      resources: [{ name: 'example.com/by-id', paths: ['/dev/serial/by-id/*'] }],
    });
    const quiet = none.read();
    usb.addDevice({
      portPath: '2-2',
      vendor: '0403',
      product: '6001',
      devnum: 5,
      interfaces: [{ class: 'ff', tty: 'ttyUSB7' }],
    });
    expect(none.probe.devfs?.list).toEqual(['/dev/serial/by-id']);
    expect(none.read()).toBe(quiet);
  });
});
