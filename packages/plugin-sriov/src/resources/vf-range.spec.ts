import fc from 'fast-check';
import { formatVfRange, parseVfRange } from './vf-range';

describe('parseVfRange', () => {
  it.each<[string, { target: string; indexes?: number[] }]>([
    ['ens1f0', { target: 'ens1f0' }],
    ['netpf0#0,2-7,9', { target: 'netpf0', indexes: [0, 2, 3, 4, 5, 6, 7, 9] }],
    ['0000:86:00.0#0-1,3,4', { target: '0000:86:00.0', indexes: [0, 1, 3, 4] }],
    ['ens2f0# 4 , 6', { target: 'ens2f0', indexes: [4, 6] }],
  ])('parses %s as upstream does', (entry, expected) => {
    const parsed = parseVfRange(entry);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.selector.target).toBe(expected.target);
    expect(
      parsed.selector.indexes === undefined ? undefined : [...parsed.selector.indexes].sort((a, b) => a - b),
    ).toEqual(expected.indexes);
  });

  it.each([
    ['', 'is empty'],
    ['#0-3', 'has nothing before "#"'],
    ['pf#', '"" is not a VF index or a range a-b'],
    ['pf#a', '"a" is not a VF index or a range a-b'],
    ['pf#3-1', 'range 3-1 ends before it starts'],
    ['pf#0-99999', 'VF index 99999 is too large'],
    ['pf#1-2-3', 'is not a VF index or a range a-b'],
  ])('refuses %j: %s', (entry, message) => {
    const parsed = parseVfRange(entry);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });

  it('never throws and round-trips through formatVfRange', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (entry) => {
        const parsed = parseVfRange(entry);
        if (!parsed.ok) return;
        const again = parseVfRange(formatVfRange(parsed.selector));
        expect(again).toEqual(parsed);
      }),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 30 }),
        (indexes) => {
          const text = formatVfRange({ target: 'pf', indexes: new Set(indexes) });
          const parsed = parseVfRange(text);
          expect(parsed.ok && [...(parsed.selector.indexes ?? [])].sort((a, b) => a - b)).toEqual(
            [...indexes].sort((a, b) => a - b),
          );
        },
      ),
    );
  });
});
