import fc from 'fast-check';
import { nvidiaInformation } from '../testing/driver-files';
import { parseDeviceFileMinor, parseMigMinors } from './parse-mig-minors';
import { kfdPciAddress, parseKfdProperties } from './parse-kfd-properties';
import { parseNvidiaInformation } from './parse-nvidia-information';

describe('parseNvidiaInformation', () => {
  it('reads model, UUID, bus location and minor from the driver file', () => {
    const text = nvidiaInformation(
      'NVIDIA H100 80GB HBM3',
      'GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01',
      ':3b:00.0',
      7,
    );
    expect(parseNvidiaInformation(text)).toEqual({
      model: 'NVIDIA H100 80GB HBM3',
      uuid: 'GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01',
      busLocation: '0000:3b:00.0',
      minor: 7,
    });
  });

  it('leaves out a malformed UUID and an out-of-range minor', () => {
    expect(parseNvidiaInformation('GPU UUID: GPU-xyz\nDevice Minor: 255\nDevice Minor: -1\n')).toEqual({});
  });

  it('never throws and only returns well-formed values on any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const info = parseNvidiaInformation(text);
        if (info.uuid !== undefined) expect(info.uuid).toMatch(/^GPU-[0-9a-fA-F-]{36}$/);
        if (info.minor !== undefined) expect(info.minor).toBeLessThanOrEqual(254);
      }),
    );
  });
});

describe('parseMigMinors', () => {
  it('maps capability paths to minors and skips junk', () => {
    const minors = parseMigMinors(
      'config 1\nmonitor 2\ngpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\nbogus\ngpu0/gi/access x\n',
    );
    expect([...minors]).toEqual([
      ['config', 1],
      ['monitor', 2],
      ['gpu0/gi1/access', 12],
      ['gpu0/gi1/ci0/access', 13],
    ]);
  });

  it('reads DeviceFileMinor from an access file', () => {
    expect(parseDeviceFileMinor('DeviceFileMinor: 417\nDeviceFileMode: 292\n')).toBe(417);
    expect(parseDeviceFileMinor('DeviceFileMode: 292\n')).toBeUndefined();
  });

  it('never throws on any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        for (const value of parseMigMinors(text).values()) expect(Number.isInteger(value)).toBe(true);
        const minor = parseDeviceFileMinor(text);
        if (minor !== undefined) expect(Number.isInteger(minor)).toBe(true);
      }),
    );
  });
});

describe('parseKfdProperties / kfdPciAddress', () => {
  it('reads integer properties and decodes location_id into a PCI address', () => {
    const props = parseKfdProperties(
      'cpu_cores_count 0\nlocation_id 33536\ndomain 0\ndrm_render_minor 128\nname gfx90a\n',
    );
    expect(props.get('location_id')).toBe(33536);
    expect(props.get('drm_render_minor')).toBe(128);
    expect(props.has('name')).toBe(false);
    expect(kfdPciAddress(33536, 0)).toBe('0000:83:00.0');
    expect(kfdPciAddress((0xc1 << 8) | (2 << 3) | 1, 1)).toBe('0001:c1:02.1');
    expect(kfdPciAddress(-1)).toBeUndefined();
    expect(kfdPciAddress(0x10000)).toBeUndefined();
  });

  it('never throws and yields safe integers or valid addresses', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.integer(), fc.integer(), (text, location, domain) => {
        for (const value of parseKfdProperties(text).values()) expect(Number.isSafeInteger(value)).toBe(true);
        const address = kfdPciAddress(location, domain);
        if (address !== undefined) expect(address).toMatch(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
      }),
    );
  });
});
