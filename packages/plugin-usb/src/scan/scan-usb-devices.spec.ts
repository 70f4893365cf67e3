import { rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSysfs } from '@kdp/topology';
import { defined } from '../testing/defined';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';
import { createUsbScanCache, scanUsbDevices, type UsbScanCache } from './scan-usb-devices';

/** The nodes of one device in a scan, as paths. */
const nodesOf = async (usb: UsbFixture, cache: UsbScanCache, portPath: string) => {
  const scan = await scanUsbDevices(createSysfs({ root: usb.sys.root }), cache);
  return defined(scan.devices.find((d) => d.portPath === portPath)).nodes.map((n) => n.path);
};

describe('scanUsbDevices with a cache: only what changed is read again', () => {
  let usb: UsbFixture;
  let cache: UsbScanCache;
  const scan = () => scanUsbDevices(createSysfs({ root: usb.sys.root }), cache);
  /** Changes a file behind the cache's back: what a re-read would see, and an unchanged device would not. */
  const poke = (portPath: string, file: string, content: string) =>
    writeFileSync(join(usb.sys.root, 'bus/usb/devices', portPath, file), `${content}\n`);

  beforeEach(async () => {
    usb = createUsbFixture();
    usb.addRootHub(1);
    usb.addDevice({
      portPath: '1-1',
      vendor: '0403',
      product: '6001',
      devnum: 2,
      interfaces: [{ class: 'ff' }],
    });
    usb.addDevice({
      portPath: '1-2',
      vendor: '10c4',
      product: 'ea60',
      devnum: 3,
      interfaces: [{ class: 'ff' }],
    });
    cache = createUsbScanCache();
    await scan();
  });
  afterEach(() => usb.remove());

  it('an unchanged device is taken from the cache; a replug between two scans is read again', async () => {
    poke('1-1:1.0', 'bInterfaceClass', '0a');
    poke('1-2:1.0', 'bInterfaceClass', '0a');
    expect((await scan()).devices.map((d) => d.interfaceClasses)).toEqual([['ff'], ['ff']]);
    // Same names in bus/usb/devices, same interfaces, no node: only the new directory tells.
    usb.replug('1-1', 7);
    poke('1-1:1.0', 'bInterfaceClass', '0a');
    expect((await scan()).devices.map((d) => [d.devnum, d.interfaceClasses])).toEqual([
      [7, ['0a']],
      [3, ['ff']],
    ]);
  });

  it('a node bound late (driver loaded after the plug) re-reads its owner only; its unbinding too', async () => {
    poke('1-2:1.0', 'bInterfaceClass', '0a');
    usb.bindNodes('1-1', 0, { tty: 'ttyUSB5' });
    expect(await nodesOf(usb, cache, '1-1')).toEqual(['/dev/bus/usb/001/002', '/dev/ttyUSB5']);
    expect((await scan()).devices[1]?.interfaceClasses).toEqual(['ff']);

    const tty = join(usb.sys.root, 'bus/usb/devices/1-1:1.0/ttyUSB5');
    unlinkSync(join(usb.sys.root, 'class/tty/ttyUSB5'));
    rmSync(tty, { recursive: true });
    expect(await nodesOf(usb, cache, '1-1')).toEqual(['/dev/bus/usb/001/002']);
  });

  it('an interface that appears in bus/usb/devices re-reads its device', async () => {
    usb.sys.write('devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.1/bInterfaceClass', '08\n');
    usb.sys.linkTo('bus/usb/devices/1-2:1.1', 'devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.1');
    expect((await scan()).devices[1]?.interfaceClasses).toEqual(['08', 'ff']);
  });

  it('an unplug forgets the device; the replug at the same port is read afresh', async () => {
    usb.removeDevice('1-1');
    expect((await scan()).devices.map((d) => d.portPath)).toEqual(['1-2']);
    expect([...cache.devices.keys()]).toEqual(['1-2']);
    expect([...cache.strings.keys()]).toEqual(['1-2@1/3']);
    usb.addDevice({
      portPath: '1-1',
      vendor: '0403',
      product: '6015',
      devnum: 9,
      serial: 'NEW',
      interfaces: [{ class: 'ff', tty: 'ttyUSB0' }],
    });
    expect((await scan()).devices[0]).toMatchObject({
      devnum: 9,
      productId: '6015',
      serial: 'NEW',
      nodes: [
        { kind: 'usb', path: '/dev/bus/usb/001/009' },
        { kind: 'tty', path: '/dev/ttyUSB0' },
      ],
    });
  });

  it('gives the same devices as a scan without a cache, after any of these changes', async () => {
    usb.addRootHub(2, { address: '0000:80:14.0', numaNode: 1 });
    usb.addDevice({ portPath: '2-1', vendor: '05e3', product: '0610', devnum: 2, deviceClass: '09' });
    usb.addDevice({
      portPath: '2-1.3',
      vendor: '046d',
      product: 'c31c',
      devnum: 3,
      interfaces: [{ class: '03', hidraw: 'hidraw0', events: ['event2'] }],
    });
    usb.replug('1-2', 11);
    usb.bindNodes('1-1', 0, { tty: 'ttyUSB1' });
    const cached = await scan();
    const fresh = await scanUsbDevices(createSysfs({ root: usb.sys.root }));
    expect(cached).toEqual(fresh);
    expect(fresh.devices.map((d) => [d.portPath, d.controller, d.numaNode, d.hubs])).toEqual([
      ['1-1', '0000:00:14.0', 0, ['usb1']],
      ['1-2', '0000:00:14.0', 0, ['usb1']],
      ['2-1', '0000:80:14.0', 1, ['usb2']],
      ['2-1.3', '0000:80:14.0', 1, ['usb2', '2-1']],
    ]);
  });
});

describe('the host controller of a USB device', () => {
  let usb: UsbFixture;
  beforeEach(() => (usb = createUsbFixture()));
  afterEach(() => usb.remove());

  it('numa_node -1 is unknown; a controller that is not PCI has no address', async () => {
    usb.addRootHub(1, { address: '0000:00:14.0', numaNode: -1 });
    usb.sys.mkdir('devices/platform/soc/xhci-hcd.0');
    usb.addRootHub(2, { controller: 'devices/platform/soc/xhci-hcd.0' });
    usb.addDevice({ portPath: '1-1', vendor: '0403', product: '6001', devnum: 2 });
    usb.addDevice({ portPath: '2-1', vendor: '0403', product: '6001', devnum: 2 });
    const { devices } = await scanUsbDevices(createSysfs({ root: usb.sys.root }));
    expect(devices.map((d) => [d.controller, d.numaNode])).toEqual([
      ['0000:00:14.0', undefined],
      [undefined, undefined],
    ]);
  });
});
