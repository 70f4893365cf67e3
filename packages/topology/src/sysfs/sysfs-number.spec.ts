import fc from 'fast-check';
import { formatSysfsHex, parseSysfsHex, parseSysfsInt } from './sysfs-number';

describe('sysfs numbers', () => {
  it('reads decimal and hex attributes as the kernel writes them', () => {
    expect(parseSysfsInt('-1\n')).toBe(-1);
    expect(parseSysfsInt(' 64 ')).toBe(64);
    expect(parseSysfsHex('0x10de\n')).toBe(0x10de);
    expect(parseSysfsHex('154c')).toBe(0x154c);
    expect(formatSysfsHex(0x30200, 6)).toBe('0x030200');
  });

  it('refuses empty and non-numeric values', () => {
    for (const bad of ['', 'abc', '1.5', '0x', '12abc', '99999999999999999'])
      expect(parseSysfsInt(bad)).toBeUndefined();
    for (const bad of ['', 'xyz', '0x', '0xg1', '-0x1', '0x12345678901234'])
      expect(parseSysfsHex(bad)).toBeUndefined();
  });

  it('round-trips integers and never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.integer(), (n) => expect(parseSysfsInt(`${n}\n`)).toBe(n)));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) =>
        expect(parseSysfsHex(formatSysfsHex(n, 6))).toBe(n),
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const int = parseSysfsInt(text);
        const hex = parseSysfsHex(text);
        if (int !== undefined) expect(Number.isSafeInteger(int)).toBe(true);
        if (hex !== undefined) expect(Number.isSafeInteger(hex) && hex >= 0).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
