import fc from 'fast-check';
import { globToRegExp, hasGlobSyntax } from './glob-pattern';

describe('globToRegExp', () => {
  it.each([
    ['1-1.*', '1-1.4', true],
    ['1-1.*', '1-1.4.2', true],
    ['1-1.*', '1-2.4', false],
    ['ttyUSB?', 'ttyUSB3', true],
    ['ttyUSB?', 'ttyUSB10', false],
    ['A5[0-9]*', 'A50285BI', true],
    ['A5[!0-9]*', 'A50285BI', false],
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['[', '[', true],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (pattern, value, expected) => {
    expect(globToRegExp(pattern).test(value)).toBe(expected);
  });

  it('keeps * within one path segment when a separator is given', () => {
    const re = globToRegExp('/dev/tty*', { separator: '/' });
    expect(re.test('/dev/ttyUSB0')).toBe(true);
    expect(re.test('/dev/tty/sub')).toBe(false);
  });

  it('ignores case when asked (hex IDs)', () => {
    expect(globToRegExp('10C4', { ignoreCase: true }).test('10c4')).toBe(true);
  });

  it('never throws and a pattern without syntax matches only itself', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (pattern, value) => {
        const re = globToRegExp(pattern, { separator: '/' });
        re.test(value);
        if (!hasGlobSyntax(pattern)) expect(globToRegExp(pattern).test(pattern)).toBe(true);
      }),
    );
  });
});
