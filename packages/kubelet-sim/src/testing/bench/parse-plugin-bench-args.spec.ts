import { parseBenchDuration, parsePluginBenchArgs } from './parse-plugin-bench-args';

describe('parsePluginBenchArgs', () => {
  it('defaults to a 60 s idle window and 50 rounds', () => {
    expect(parsePluginBenchArgs([])).toEqual({ idleMs: 60_000, rounds: 50 });
  });

  it('reads both flags, separate or with =', () => {
    expect(parsePluginBenchArgs(['--idle', '5s', '--rounds', '7'])).toEqual({ idleMs: 5000, rounds: 7 });
    expect(parsePluginBenchArgs(['--idle=1.5m', '--rounds=1'])).toEqual({ idleMs: 90_000, rounds: 1 });
    expect(parseBenchDuration('250ms')).toBe(250);
  });

  it('refuses bad values, missing values and unknown flags', () => {
    expect(() => parsePluginBenchArgs(['--idle', '60'])).toThrow('--idle: "60" is no duration');
    expect(() => parsePluginBenchArgs(['--rounds', '0'])).toThrow('--rounds: "0" is no positive integer');
    expect(() => parsePluginBenchArgs(['--rounds', '2.5'])).toThrow('no positive integer');
    expect(() => parsePluginBenchArgs(['--idle'])).toThrow('--idle needs a value');
    expect(() => parsePluginBenchArgs(['--only', 'x'])).toThrow('unknown argument "--only"');
  });
});
