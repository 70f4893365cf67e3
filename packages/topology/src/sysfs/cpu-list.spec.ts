import fc from 'fast-check';
import { formatCpuList, maxCpuNumber, parseCpuList, parseCpuMask } from './cpu-list';

describe('parseCpuList', () => {
  it('reads kernel cpulists', () => {
    expect(parseCpuList('0-3,8,10-11\n')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('')).toEqual([]);
    expect(parseCpuList('5')).toEqual([5]);
  });

  it('refuses garbage, reversed ranges and absurd numbers', () => {
    for (const bad of ['a', '3-1', '1,,2', '-1', '0-999999', '1-', '0x3', '1 2']) {
      expect(parseCpuList(bad)).toBeUndefined();
    }
  });

  it('round-trips with formatCpuList', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 60 }), (cpus) => {
        expect(parseCpuList(formatCpuList(cpus))).toEqual([...cpus].sort((a, b) => a - b));
      }),
    );
  });

  it('never throws on arbitrary text and returns only CPUs in range', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9,\- ]{0,30}$/)), (text) => {
        const cpus = parseCpuList(text);
        if (cpus) for (const cpu of cpus) expect(cpu >= 0 && cpu <= maxCpuNumber).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseCpuMask', () => {
  it('reads comma-separated 32-bit words, most significant first', () => {
    expect(parseCpuMask('0000000f')).toEqual([0, 1, 2, 3]);
    expect(parseCpuMask('00000001,00000000')).toEqual([32]);
    expect(parseCpuMask('ffff0000,0000ffff')).toEqual([
      ...Array.from({ length: 16 }, (_, i) => i),
      ...Array.from({ length: 16 }, (_, i) => 48 + i),
    ]);
  });

  it('refuses garbage', () => {
    for (const bad of ['', 'xyz', '123456789', '0f,,0f', '0f 0f']) expect(parseCpuMask(bad)).toBeUndefined();
  });

  it('agrees with the cpulist of the same CPUs and never throws', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 127 }), { maxLength: 40 }), (cpus) => {
        const words = [0, 1, 2, 3].map((w) =>
          (cpus.filter((c) => c >> 5 === w).reduce((m, c) => (m | (1 << (c & 31))) >>> 0, 0) >>> 0)
            .toString(16)
            .padStart(8, '0'),
        );
        expect(parseCpuMask(words.reverse().join(','))).toEqual([...cpus].sort((a, b) => a - b));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => void parseCpuMask(text)),
      { numRuns: 2000 },
    );
  });
});
