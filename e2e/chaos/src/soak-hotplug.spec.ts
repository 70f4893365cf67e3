import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { addSampleMachine, createUsbFixture, type UsbFixture } from '@kdp/plugin-usb/testing';
import { unplugUsbDevice } from './soak-hotplug';

/** Every file and link below `dir`: relative path → content or `-> target`. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isSymbolicLink()) files[relative(dir, full)] = `-> ${readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else files[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return files;
}

describe('unplugUsbDevice', () => {
  let usb: UsbFixture;

  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
  });

  afterEach(() => usb.remove());

  const unplugHub = () =>
    unplugUsbDevice({
      sysfsRoot: usb.sys.root,
      devRoot: usb.sys.devRoot,
      portPath: '1-4',
      holdingDir: join(usb.sys.base, 'unplugged'),
    });

  it('removes a hub with its keyboard and webcam: links, sysfs directories and /dev nodes', () => {
    const before = snapshot(usb.sys.base);
    const device = unplugHub();

    expect([...device.nodes].sort()).toEqual([
      '/dev/bus/usb/001/005',
      '/dev/bus/usb/001/006',
      '/dev/bus/usb/001/007',
      '/dev/hidraw0',
      '/dev/input/event3',
      '/dev/input/event4',
      '/dev/video0',
    ]);
    const sys = (path: string): boolean => existsSync(join(usb.sys.root, path));
    const links = (path: string): boolean => {
      try {
        return lstatSync(join(usb.sys.root, path)).isSymbolicLink();
      } catch {
        return false;
      }
    };
    for (const link of ['bus/usb/devices/1-4', 'bus/usb/devices/1-4.2:1.0', 'class/video4linux/video0'])
      expect(links(link)).toBe(false);
    for (const node of device.nodes) expect(existsSync(join(usb.sys.devRoot, node.slice(5)))).toBe(false);
    // The other devices stay.
    expect(sys('bus/usb/devices/1-1/idVendor')).toBe(true);
    expect(existsSync(join(usb.sys.devRoot, 'ttyUSB0'))).toBe(true);
    // Nothing dangles: every remaining link in bus/usb/devices and class/ resolves.
    const after = snapshot(usb.sys.base);
    const dangling = Object.keys(after).filter(
      (path) => after[path]?.startsWith('-> ') === true && !existsSync(join(usb.sys.base, path)),
    );
    expect(dangling.filter((path) => /^sys\/(bus\/usb\/devices|class)\//.test(path))).toEqual([]);
    expect(Object.keys(before).length).toBeGreaterThan(Object.keys(after).length);
  });

  it('plugs it in again exactly as it was', () => {
    const before = snapshot(usb.sys.base);
    unplugHub().replug();
    const after = snapshot(usb.sys.base);
    expect(Object.keys(after).filter((path) => path.startsWith('unplugged/'))).toEqual([]);
    expect(after).toEqual(before);
  });
});
