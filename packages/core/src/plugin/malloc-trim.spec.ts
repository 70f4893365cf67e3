import type * as Koffi from 'koffi';
import { createMallocTrim } from './malloc-trim';

/** A koffi that records what is loaded and bound, and the calls of the bound function. */
function fakeKoffi(): { koffi: typeof Koffi; loads: string[]; bound: string[]; calls: number[] } {
  const loads: string[] = [];
  const bound: string[] = [];
  const calls: number[] = [];
  const koffi = {
    load: (library: string) => {
      loads.push(library);
      return {
        func: (signature: string) => {
          bound.push(signature);
          return (pad: number) => {
            calls.push(pad);
            return 1;
          };
        },
      };
    },
  } as unknown as typeof Koffi;
  return { koffi, loads, bound, calls };
}

describe('createMallocTrim', () => {
  it("binds glibc's malloc_trim on the first call only, and trims with no padding on every call", () => {
    const fake = fakeKoffi();
    let loaded = 0;
    const trim = createMallocTrim({
      loadKoffi: () => {
        loaded += 1;
        return fake.koffi;
      },
    });
    expect(loaded).toBe(0);
    trim();
    trim();
    expect(loaded).toBe(1);
    expect(fake.loads).toEqual(['libc.so.6']);
    expect(fake.bound).toEqual(['int malloc_trim(size_t pad)']);
    expect(fake.calls).toEqual([0, 0]);
  });

  it('does nothing where koffi does not load, after saying why once', () => {
    const reasons: string[] = [];
    let tries = 0;
    const trim = createMallocTrim({
      loadKoffi: () => {
        tries += 1;
        throw new Error("Cannot find module 'koffi'");
      },
      onUnavailable: (reason) => reasons.push(reason),
    });
    expect(() => trim()).not.toThrow();
    expect(() => trim()).not.toThrow();
    expect(tries).toBe(1);
    expect(reasons).toEqual(["Cannot find module 'koffi'"]);
  });

  it('does nothing where the C library has no malloc_trim (musl)', () => {
    const reasons: string[] = [];
    const koffi = {
      load: () => ({
        func: () => {
          throw new Error('Cannot find function malloc_trim in shared library');
        },
      }),
    } as unknown as typeof Koffi;
    const trim = createMallocTrim({ loadKoffi: () => koffi, onUnavailable: (r) => reasons.push(r) });
    trim();
    expect(reasons).toEqual(['Cannot find function malloc_trim in shared library']);
  });

  it("binds this machine's glibc through the real koffi", () => {
    const reasons: string[] = [];
    const trim = createMallocTrim({ onUnavailable: (r) => reasons.push(r) });
    trim();
    expect(reasons).toEqual([]);
  });
});
