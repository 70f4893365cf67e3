import fc from 'fast-check';
import { isPciAddress, parsePciAddress } from './pci-address';
import { pciePlacementFromPath } from './pcie-path';

describe('PCI addresses', () => {
  it('parses sysfs function names, VMD domains included, and refuses anything else', () => {
    expect(parsePciAddress('0000:3b:02.6')).toEqual({ domain: 0, bus: 0x3b, device: 2, function: 6 });
    expect(parsePciAddress('10000:e0:06.0')).toEqual({ domain: 0x10000, bus: 0xe0, device: 6, function: 0 });
    for (const bad of ['0000:3b:02.8', '0000:3b:20.0', '00:3b:02.0', '0000:3B:02.0', 'pci0000:00', '']) {
      expect(isPciAddress(bad)).toBe(false);
    }
  });

  it('round-trips generated addresses and never throws on arbitrary text', () => {
    const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xff }),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 0, max: 7 }),
        (domain, bus, device, fn) => {
          const text = `${hex(domain, 4)}:${hex(bus, 2)}:${hex(device, 2)}.${fn}`;
          expect(parsePciAddress(text)).toEqual({ domain, bus, device, function: fn });
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => void parsePciAddress(text)),
      { numRuns: 2000 },
    );
  });
});

describe('pciePlacementFromPath', () => {
  it('reads the root complex and the bridges from the root port down to the parent', () => {
    expect(
      pciePlacementFromPath(
        'devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0',
        '0000:03:00.0',
      ),
    ).toEqual({ rootComplex: 'pci0000:00', bridges: ['0000:00:01.0', '0000:01:00.0', '0000:02:08.0'] });
    expect(pciePlacementFromPath('devices/pci0000:00/0000:00:02.0', '0000:00:02.0')).toEqual({
      rootComplex: 'pci0000:00',
      bridges: [],
    });
    // Intel VMD: a second domain hangs below a function of the first.
    expect(
      pciePlacementFromPath(
        'devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0/10000:e1:00.0',
        '10000:e1:00.0',
      ),
    ).toEqual({ rootComplex: 'pci0000:00', bridges: ['0000:00:0e.0', '10000:e0:06.0'] });
    expect(pciePlacementFromPath('devices/platform/x/0000:00:07.0', '0000:00:07.0')).toBeUndefined();
    expect(pciePlacementFromPath('devices/pci0000:00/0000:00:01.0', '0000:00:02.0')).toBeUndefined();
  });

  it('never throws and only returns PCI addresses (fuzzed)', () => {
    const segment = fc.oneof(
      fc.constantFrom('devices', 'pci0000:00', '0000:00:01.0', '0000:01:00.0', 'virtio2', '..', ''),
      fc.string({ maxLength: 14 }),
    );
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 8 }),
        fc.constantFrom('0000:01:00.0', 'x'),
        (segments, address) => {
          const placement = pciePlacementFromPath(segments.join('/'), address);
          for (const bridge of placement?.bridges ?? []) expect(isPciAddress(bridge)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
