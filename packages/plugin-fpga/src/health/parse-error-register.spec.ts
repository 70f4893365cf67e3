import fc from 'fast-check';
import { parseErrorRegister } from './parse-error-register';

describe('parseErrorRegister', () => {
  it('reads 64-bit registers exactly', () => {
    expect(parseErrorRegister('0x0\n')).toBe(0n);
    expect(parseErrorRegister('0x8000000000000000')).toBe(0x8000000000000000n);
    expect(parseErrorRegister('zzz')).toBeUndefined();
    expect(parseErrorRegister('0x10000000000000000')).toBeUndefined();
  });

  it('never throws (fuzzed)', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseErrorRegister(text)));
  });
});
