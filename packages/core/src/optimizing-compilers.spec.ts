import { setFlagsFromString } from 'node:v8';
import { createOptimizingCompilers } from './optimizing-compilers';

describe('createOptimizingCompilers', () => {
  it('turns TurboFan off on hold and back on on release, once each', () => {
    const flags: string[] = [];
    const compilers = createOptimizingCompilers({
      setFlags: (f) => flags.push(f),
      nodeOptions: () => ['--expose-gc', '--trace-opt', '--optimize-for-size', '--max-old-space-size=64'],
    });
    expect(compilers.held).toBe(false);
    compilers.release();
    expect(flags).toEqual([]);
    expect(compilers.hold()).toBe(true);
    expect(compilers.hold()).toBe(true);
    expect(compilers.held).toBe(true);
    expect(flags).toEqual(['--no-turbofan']);
    compilers.release();
    compilers.release();
    expect(compilers.held).toBe(false);
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
  });

  it.each([
    ['--jitless'],
    ['--lite-mode'],
    ['--no-opt'],
    ['--turbofan'],
    ['--no-maglev'],
    ['--no_maglev'],
    ['--max-opt=2'],
    ['--noturbofan'],
  ])('leaves the tiers as the user chose them with %s', (option) => {
    const flags: string[] = [];
    const compilers = createOptimizingCompilers({
      setFlags: (f) => flags.push(f),
      nodeOptions: () => ['--expose-gc', option],
    });
    expect(compilers.hold()).toBe(false);
    expect(compilers.held).toBe(false);
    compilers.release();
    expect(flags).toEqual([]);
  });

  it('reads the options from the command line and NODE_OPTIONS by default', () => {
    const saved = process.env['NODE_OPTIONS'];
    process.env['NODE_OPTIONS'] = '--expose-gc  --jitless';
    try {
      const flags: string[] = [];
      expect(createOptimizingCompilers({ setFlags: (f) => flags.push(f) }).hold()).toBe(false);
      expect(flags).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env['NODE_OPTIONS'];
      else process.env['NODE_OPTIONS'] = saved;
    }
  });

  it("holds this process's V8 for real: a hot function is not compiled by TurboFan while held, and is once released", async () => {
    // V8's own view of a function (`%GetOptimizationStatus`): bit 64 is "compiled by TurboFan".
    setFlagsFromString('--allow-natives-syntax');
    const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
    const turbofanned = (f: unknown): boolean => (status(f) & 64) !== 0;
    const makeHot = (): ((n: number) => number) =>
      new Function('n', 'let s = 0; for (let i = 0; i < n; i++) s += (i * 7) % 13; return s;') as (
        n: number,
      ) => number;
    /** Calls `f` in batches, yielding so that a concurrent compilation can finish, until TurboFan compiled it. */
    const warm = async (f: (n: number) => number, batches: number): Promise<boolean> => {
      for (let b = 0; b < batches; b++) {
        for (let i = 0; i < 200; i++) f(100);
        await new Promise((resolve) => setImmediate(resolve));
        if (turbofanned(f)) return true;
      }
      return false;
    };
    const compilers = createOptimizingCompilers({ nodeOptions: () => [] });
    expect(compilers.hold()).toBe(true);
    try {
      const held = makeHot();
      expect(await warm(held, 200)).toBe(false);
      compilers.release();
      // The same function, and a fresh one, reach TurboFan once they may.
      expect(await warm(held, 5_000)).toBe(true);
      expect(await warm(makeHot(), 5_000)).toBe(true);
    } finally {
      compilers.release();
    }
  });
});
