import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSysfs } from '@kdp/topology';
import { isRootHubName, isUsbDeviceName, readUsbDevice, type UsbStringCache } from './read-usb-device';
import { scanUsbDevices } from './scan-usb-devices';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';

describe('USB sysfs names', () => {
  it("tells devices from root hubs and interfaces (root hubs' interfaces included)", () => {
    expect(['1-1', '3-4', '1-1.4', '2-1.4.2.1'].every(isUsbDeviceName)).toBe(true);
    expect(['usb1', '1-0:1.0', '1-1.4:1.0', '1-1:1.0', 'x', '1-', '-1', '1-1.'].some(isUsbDeviceName)).toBe(
      false,
    );
    expect(isRootHubName('usb12')).toBe(true);
    expect(isRootHubName('1-0:1.0')).toBe(false);
  });
});

describe('readUsbDevice and scanUsbDevices on garbage', () => {
  let usb: UsbFixture;
  let dir: string;
  beforeEach(() => {
    usb = createUsbFixture();
    usb.addRootHub(1);
    dir = usb.addDevice({
      portPath: '1-1',
      vendor: '0403',
      product: '6001',
      devnum: 2,
      serial: 'A1',
      interfaces: [{ class: 'ff', tty: 'ttyUSB0' }],
    });
    usb.addDevice({ portPath: '1-2', vendor: '10c4', product: 'ea60', devnum: 3 });
  });
  afterEach(() => usb.remove());
  const sysfs = () => createSysfs({ root: usb.sys.root });

  it.each([
    ['idVendor', '', 'idVendor "" is malformed'],
    ['idVendor', 'zzzz', 'idVendor "zzzz" is malformed'],
    ['busnum', '-1', 'busnum "-1" is malformed'],
    ['devnum', '0', 'devnum "0" is malformed'],
    ['devnum', '1e3', 'devnum "1e3" is malformed'],
  ])(
    'without uevent identity, %s = %j skips that device with a reason, and only that one',
    async (file, content, reason) => {
      writeFileSync(join(usb.sys.root, dir, 'uevent'), 'DEVTYPE=usb_device\n');
      writeFileSync(join(usb.sys.root, dir, file), content);
      const scan = await scanUsbDevices(sysfs());
      expect(scan.devices.map((d) => d.portPath)).toEqual(['1-2']);
      expect(scan.skipped).toEqual([
        { path: 'bus/usb/devices/usb1', reason: 'root hub' },
        { path: 'bus/usb/devices/1-1', reason },
      ]);
    },
  );

  it('reads identity from uevent, and falls back to the attribute files for a field uevent garbles', async () => {
    writeFileSync(join(usb.sys.root, dir, 'idVendor'), 'ffff\n');
    let read = await readUsbDevice(sysfs(), '1-1');
    expect(read.ok && read.device).toMatchObject({
      vendorId: '0403',
      productId: '6001',
      busnum: 1,
      devnum: 2,
      bcdDevice: '0100',
    });
    writeFileSync(
      join(usb.sys.root, dir, 'uevent'),
      'PRODUCT=zz/6001/100\nTYPE=0/0/0\nBUSNUM=001\nDEVNUM=002\n',
    );
    read = await readUsbDevice(sysfs(), '1-1');
    expect(read.ok && read.device.vendorId).toBe('ffff');
  });

  it('reads descriptor strings once per plug when given a cache', async () => {
    const strings: UsbStringCache = new Map();
    await readUsbDevice(sysfs(), '1-1', { strings });
    writeFileSync(join(usb.sys.root, dir, 'serial'), 'CHANGED\n');
    const again = await readUsbDevice(sysfs(), '1-1', { strings });
    expect(again.ok && again.device.serial).toBe('A1');
    usb.replug('1-1', 9);
    writeFileSync(join(usb.sys.root, dir, 'serial'), 'NEW\n');
    const replugged = await readUsbDevice(sysfs(), '1-1', { strings });
    expect(replugged.ok && replugged.device).toMatchObject({ devnum: 9, serial: 'NEW' });
    expect([...strings.keys()].sort()).toEqual(['1-1@1/2', '1-1@1/9']);
  });

  it('names the host controller, its NUMA node and the hubs above the device', async () => {
    const read = await readUsbDevice(sysfs(), '1-1');
    expect(read.ok && read.device).toMatchObject({
      controller: '0000:00:14.0',
      numaNode: 0,
      hubs: ['usb1'],
    });
    expect(read.ok && read.dir).toBe('devices/pci0000:00/0000:00:14.0/usb1/1-1');
  });

  it('a dangling device link is skipped with a reason', async () => {
    usb.sys.link('bus/usb/devices/1-9', '../../../devices/nowhere/1-9');
    const scan = await scanUsbDevices(sysfs());
    expect(scan.skipped).toContainEqual({
      path: 'bus/usb/devices/1-9',
      reason: 'device directory cannot be resolved',
    });
    expect(scan.devices).toHaveLength(2);
  });

  it('a link that leaves the sysfs root is never followed', async () => {
    usb.sys.link('bus/usb/devices/1-8', '/');
    const read = await readUsbDevice(sysfs(), '1-8');
    expect(read.ok).toBe(false);
  });

  it('control characters and blank serials are dropped; a missing class reads as 00', async () => {
    writeFileSync(join(usb.sys.root, dir, 'serial'), '   \n');
    writeFileSync(join(usb.sys.root, dir, 'product'), 'FT\u0007232R\n');
    writeFileSync(join(usb.sys.root, dir, 'bDeviceClass'), 'x');
    const read = await readUsbDevice(sysfs(), '1-1');
    expect(read.ok && read.device).toMatchObject({ product: 'FT232R', deviceClass: '00' });
    expect(read.ok && read.device.serial).toBeUndefined();
  });

  it('never throws whatever the attribute files hold', async () => {
    const names = [
      'idVendor',
      'idProduct',
      'busnum',
      'devnum',
      'serial',
      'bDeviceClass',
      'manufacturer',
      'speed',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.constantFrom(
            'PRODUCT=',
            'PRODUCT=1/2/3\nBUSNUM=0\nDEVNUM=999',
            'TYPE=300/0/0',
            'BUSNUM=1\nDEVNUM=-4',
          ),
        ),
        async (name, content) => {
          writeFileSync(join(usb.sys.root, dir, name), content);
          const read = await readUsbDevice(sysfs(), '1-1');
          if (read.ok) expect(read.device.nodes[0]?.path).toMatch(/^\/dev\/bus\/usb\/\d{3}\/\d{3}$/);
          else expect(read.reason).toMatch(/missing|malformed/);
        },
      ),
      { numRuns: 150 },
    );
  });
});
