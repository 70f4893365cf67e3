import fc from 'fast-check';
import { flag, formatDuration, parseDuration } from './flags';

describe('parseDuration / formatDuration', () => {
  it.each([
    ['1s', 1000],
    ['250ms', 250],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['2h', 7_200_000],
    ['1000', 1000],
    [' 5s ', 5000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '1', '-1s', '1d', '1s2', '1 s', '0x10', '1e3ms', '1s-', 'ms1'].filter((t) => t !== '1'))(
    'refuses %j with the accepted forms',
    (text) => {
      expect(() => parseDuration(text)).toThrow(
        `${JSON.stringify(text)} is not a duration (e.g. 500ms, 1s, 2m30s)`,
      );
    },
  );

  it('reads back every duration it formats, and never throws anything but its own error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400_000_000 }), (ms) => parseDuration(formatDuration(ms)) === ms),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        try {
          return Number.isInteger(parseDuration(text));
        } catch (error) {
          return (error as Error).message.endsWith('is not a duration (e.g. 500ms, 1s, 2m30s)');
        }
      }),
    );
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('forever');
  });
});

describe('flag builders', () => {
  it('type their values from the options and parse every kind', () => {
    const text = flag.string({ description: 'x' });
    const withDefault = flag.path({ description: 'p', default: '/dev' });
    expect([text.defaultValue, text.valueName, withDefault.defaultValue, withDefault.defaultText]).toEqual([
      undefined,
      'VALUE',
      '/dev',
      '/dev',
    ]);
    expect(() => text.parse([' '])).toThrow('must not be empty');
    const count = flag.number({ description: 'n', min: 1, max: 8, default: 2 });
    expect(count.parse(['8'])).toBe(8);
    expect(() => count.parse(['9'])).toThrow('9 is above 8');
    expect(() => count.parse(['0'])).toThrow('0 is below 1');
    expect(() => count.parse(['1.5'])).toThrow('1.5 is not a whole number');
    expect(() => count.parse(['x'])).toThrow('"x" is not a number');
    expect(flag.number({ description: 'r', integer: false }).parse(['0.25'])).toBe(0.25);
    const wait = flag.duration({ description: 'd', default: '1s', min: '100ms', max: '1m' });
    expect([wait.defaultValue, wait.parse(['500ms'])]).toEqual([1000, 500]);
    expect(() => wait.parse(['2m'])).toThrow('2m is longer than 1m');
    expect(flag.boolean({ description: 'b' }).defaultValue).toBe(false);
    const mode = flag.enum({ description: 'm', values: ['a', 'b'] as const, default: 'a' });
    expect(mode.parse(['b'])).toBe('b');
    expect(mode.valueName).toBe('a|b');
    const list = flag.list({ description: 'l', values: ['x', 'y', 'z'] as const });
    expect(list.multiple).toBe(true);
    expect(list.parse(['x,y', 'y', ' z ', ''])).toEqual(['x', 'y', 'z']);
    expect(() => list.parse(['x,w'])).toThrow('"w": expected x, y, z');
  });
});
