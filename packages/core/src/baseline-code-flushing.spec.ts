import { setFlagsFromString } from 'node:v8';
import { flushBaselineCode } from './baseline-code-flushing';

describe('flushBaselineCode', () => {
  it('turns on V8’s flushing of baseline code', () => {
    const flags: string[] = [];
    expect(
      flushBaselineCode({
        setFlags: (f) => flags.push(f),
        nodeOptions: () => ['--expose-gc', '--max-old-space-size=64'],
      }),
    ).toBe(true);
    expect(flags).toEqual(['--flush-baseline-code']);
  });

  it.each([
    ['--no-flush-baseline-code'],
    ['--flush_baseline_code'],
    ['--no-flush-bytecode'],
    ['--no-sparkplug'],
    ['--jitless'],
    ['--lite-mode'],
  ])('leaves code flushing as the user chose it with %s', (option) => {
    const flags: string[] = [];
    expect(
      flushBaselineCode({ setFlags: (f) => flags.push(f), nodeOptions: () => ['--expose-gc', option] }),
    ).toBe(false);
    expect(flags).toEqual([]);
  });

  it("drops this process's baseline code of a function that stopped running, which V8 keeps without it", () => {
    // V8's own view of a function (`%GetOptimizationStatus`): bit 1 << 15 is "has baseline (Sparkplug) code".
    setFlagsFromString('--allow-natives-syntax');
    const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
    const compileBaseline = new Function('f', '%CompileBaseline(f)') as (f: unknown) => void;
    const collect = new Function('%CollectGarbage(0)') as () => void;
    const baseline = (f: unknown): boolean => (status(f) & (1 << 15)) !== 0;
    /** A fresh function with baseline code, then 20 full collections without a call (V8 ages code by them). */
    const keptAfterCollections = (): boolean => {
      const f = new Function('n', 'let s = 0; for (let i = 0; i < n; i++) s += i; return s;') as (
        n: number,
      ) => number;
      f(3);
      compileBaseline(f);
      expect(baseline(f)).toBe(true);
      for (let i = 0; i < 20; i++) collect();
      return baseline(f);
    };
    try {
      setFlagsFromString('--no-flush-baseline-code');
      expect(keptAfterCollections()).toBe(true);
      expect(flushBaselineCode({ nodeOptions: () => [] })).toBe(true);
      expect(keptAfterCollections()).toBe(false);
    } finally {
      setFlagsFromString('--no-flush-baseline-code');
    }
  });
});
