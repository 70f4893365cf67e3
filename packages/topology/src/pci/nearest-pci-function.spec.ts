import fc from 'fast-check';
import { nearestPciFunction } from './nearest-pci-function';

describe('nearestPciFunction', () => {
  it('finds the USB host controller of a device, behind bridges and hubs', () => {
    expect(nearestPciFunction('devices/pci0000:00/0000:00:14.0/usb1/1-4/1-4.2')).toEqual({
      address: '0000:00:14.0',
      path: 'devices/pci0000:00/0000:00:14.0',
    });
    expect(
      nearestPciFunction('/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/usb3/3-1/3-1:1.0/ttyUSB0'),
    ).toEqual({ address: '0000:81:00.0', path: '/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0' });
  });

  it('a PCI function is its own nearest; VMD domains count', () => {
    expect(nearestPciFunction('devices/pci10000:e0/10000:e0:06.0')?.address).toBe('10000:e0:06.0');
  });

  it('platform and virtual devices, root complexes and link paths have none', () => {
    for (const path of [
      'devices/platform/soc/xhci-hcd.0/usb1/1-1',
      'devices/virtual/tty/tty0',
      'devices/pci0000:00',
      'bus/usb/devices/1-4',
      '',
    ]) {
      expect(nearestPciFunction(path)).toBeUndefined();
    }
  });

  it('never throws, and what it returns is a prefix of the path ending in a PCI address', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('0000:00:14.0', 'usb1', 'pci0000:00', '1-1'), fc.string()), {
          maxLength: 8,
        }),
        (segments) => {
          const path = segments.join('/');
          const found = nearestPciFunction(path);
          if (found !== undefined) {
            expect(path.startsWith(found.path)).toBe(true);
            expect(found.path.endsWith(found.address)).toBe(true);
          }
        },
      ),
    );
  });
});
