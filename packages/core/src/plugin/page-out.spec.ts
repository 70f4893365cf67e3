import fc from 'fast-check';
import type * as Koffi from 'koffi';
import { createPageOut, isReadOnlyFileMapping, parseMappings, type Mapping } from './page-out';

/** Lines of a real Node 24 process's /proc/self/maps (shortened), one of each kind. */
const MAPS = [
  '55d0c8a00000-55d0c9000000 r--p 00000000 fe:01 1312 /nodejs/bin/node',
  '55d0c9000000-55d0cb400000 r-xp 00600000 fe:01 1312 /nodejs/bin/node',
  '55d0cb400000-55d0cb5f0000 r--p 02a00000 fe:01 1312 /nodejs/bin/node',
  '55d0cb5f0000-55d0cb600000 rw-p 02bf0000 fe:01 1312 /nodejs/bin/node',
  '55d0cc0f5000-55d0cc3a1000 rw-p 00000000 00:00 0                          [heap]',
  '7f3a10000000-7f3a10021000 rw-p 00000000 00:00 0 ',
  '7f3a1a800000-7f3a1a9a1000 r-xp 00028000 fe:01 2741 /usr/lib/x86_64-linux-gnu/libc.so.6',
  '7f3a1aa00000-7f3a1aa01000 rw-s 00000000 00:05 9 /dev/nvidiactl',
  '7f3a1ab00000-7f3a1ab01000 r--p 00000000 00:05 9 /dev/zero',
  '7f3a1ac00000-7f3a1ac40000 r-xp 00000000 00:01 77 /memfd:jit (deleted)',
  '7f3a1ad00000-7f3a1ad80000 r--s 00000000 fe:01 88 /app/shared.bin',
  '7f3a1ae00000-7f3a1ae90000 r-xp 00010000 fe:01 99 /app/node_modules/koffi/koffi.node',
  '7ffd3c5e5000-7ffd3c606000 rw-p 00000000 00:00 0                          [stack]',
  'ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]',
].join('\n');

const STATUS = (fileKiB: number): string => `Name:\tnode\nVmRSS:\t   66000 kB\nRssFile:\t   ${fileKiB} kB\n`;

/** A koffi whose madvise records its calls and answers with `answer`. */
function fakeKoffi(answer: (call: number) => number = () => 0): {
  koffi: typeof Koffi;
  bound: string[];
  calls: Array<[bigint, number, number]>;
} {
  const bound: string[] = [];
  const calls: Array<[bigint, number, number]> = [];
  const koffi = {
    load: (library: string) => ({
      func: (signature: string) => {
        bound.push(`${library}: ${signature}`);
        return (address: bigint, length: number, advice: number) => {
          calls.push([address, length, advice]);
          return answer(calls.length);
        };
      },
    }),
  } as unknown as typeof Koffi;
  return { koffi, bound, calls };
}

describe('parseMappings', () => {
  it('reads each line: range, permissions and path (empty for an anonymous mapping)', () => {
    const mappings = parseMappings(MAPS);
    expect(mappings).toHaveLength(14);
    expect(mappings[1]).toEqual({
      start: 0x55d0c9000000n,
      end: 0x55d0cb400000n,
      permissions: 'r-xp',
      path: '/nodejs/bin/node',
    });
    expect(mappings[5]?.path).toBe('');
    expect(mappings[9]?.path).toBe('/memfd:jit (deleted)');
    expect(mappings[13]).toMatchObject({ start: 0xffffffffff600000n, path: '[vsyscall]' });
  });

  it('skips what is not a mapping line (empty, truncated, an empty or reversed range)', () => {
    expect(
      parseMappings(
        [
          '',
          'garbage',
          '55d0c8a00000-55d0c9000000 r--p',
          '55d0c9000000-55d0c9000000 r--p 00000000 fe:01 1312 /nodejs/bin/node',
          '55d0c9000000-55d0c8a00000 r--p 00000000 fe:01 1312 /nodejs/bin/node',
          '1000-2000 r--p 00000000 fe:01 1312 /ok',
        ].join('\n'),
      ),
    ).toEqual([{ start: 0x1000n, end: 0x2000n, permissions: 'r--p', path: '/ok' }]);
  });

  it('never throws, and reads back every well-formed line it is given (fuzzed)', () => {
    const hex = fc.bigInt({ min: 0n, max: (1n << 64n) - 2n });
    const line = fc
      .record({
        start: hex,
        size: fc.bigInt({ min: 1n, max: 1n << 40n }),
        permissions: fc.tuple(
          fc.constantFrom('r', '-'),
          fc.constantFrom('w', '-'),
          fc.constantFrom('x', '-'),
          fc.constantFrom('p', 's'),
        ),
        path: fc.oneof(
          fc.constant(''),
          fc.string().map((s) => `/${s.replace(/\n/g, '')}`),
        ),
      })
      .map(({ start, size, permissions, path }) => ({
        start,
        end: start + size,
        permissions: permissions.join(''),
        path,
      }));
    fc.assert(
      fc.property(fc.array(line), fc.array(fc.string()), (lines, noise) => {
        const text = [
          ...lines.map(
            (m) =>
              `${m.start.toString(16)}-${m.end.toString(16)} ${m.permissions} 00000000 fe:01 12 ${m.path}`,
          ),
          ...noise.filter((n) => !/^[0-9a-f]+-/.test(n)),
        ].join('\n');
        expect(parseMappings(text)).toEqual(lines);
      }),
    );
    fc.assert(fc.property(fc.string(), (text) => void parseMappings(text)));
  });
});

describe('isReadOnlyFileMapping', () => {
  it("takes a file's private, never-writable mappings only: not the heap, stacks, devices, memfds or shared ones", () => {
    const taken = parseMappings(MAPS)
      .filter(isReadOnlyFileMapping)
      .map((m: Mapping) => `${m.permissions} ${m.path}`);
    expect(taken).toEqual([
      'r--p /nodejs/bin/node',
      'r-xp /nodejs/bin/node',
      'r--p /nodejs/bin/node',
      'r-xp /usr/lib/x86_64-linux-gnu/libc.so.6',
      'r-xp /app/node_modules/koffi/koffi.node',
    ]);
  });
});

describe('createPageOut', () => {
  it('binds madvise on the first call only and advises MADV_PAGEOUT over each read-only file mapping', () => {
    const fake = fakeKoffi();
    let loaded = 0;
    const files = [46_000, 12_500];
    const pageOut = createPageOut({
      loadKoffi: () => {
        loaded += 1;
        return fake.koffi;
      },
      readMaps: () => MAPS,
      readStatus: () => STATUS(files.shift() ?? 20_000),
    });
    expect(loaded).toBe(0);
    expect(pageOut()).toEqual({ advised: 5, refused: 0, residentFileKiB: { before: 46_000, after: 12_500 } });
    expect(fake.bound).toEqual(['libc.so.6: int madvise(uintptr_t addr, size_t length, int advice)']);
    expect(fake.calls).toEqual([
      [0x55d0c8a00000n, 0x600000, 21],
      [0x55d0c9000000n, 0x2400000, 21],
      [0x55d0cb400000n, 0x1f0000, 21],
      [0x7f3a1a800000n, 0x1a1000, 21],
      [0x7f3a1ae00000n, 0x90000, 21],
    ]);
    pageOut();
    expect(loaded).toBe(1);
    expect(fake.calls).toHaveLength(10);
  });

  it('counts the mappings the kernel refused and goes on with the rest', () => {
    const fake = fakeKoffi((call) => (call === 2 ? -1 : 0));
    const pageOut = createPageOut({
      loadKoffi: () => fake.koffi,
      readMaps: () => MAPS,
      readStatus: () => STATUS(1),
    });
    expect(pageOut()).toMatchObject({ advised: 4, refused: 1 });
    expect(fake.calls).toHaveLength(5);
  });

  it('stops, after saying why once, where the kernel refuses the advice for every mapping (Linux < 5.4)', () => {
    const fake = fakeKoffi(() => -1);
    const reasons: string[] = [];
    const pageOut = createPageOut({
      loadKoffi: () => fake.koffi,
      readMaps: () => MAPS,
      readStatus: () => STATUS(1),
      onUnavailable: (reason) => reasons.push(reason),
    });
    expect(pageOut()).toBeUndefined();
    expect(pageOut()).toBeUndefined();
    expect(fake.calls).toHaveLength(5);
    expect(reasons).toEqual(['madvise(MADV_PAGEOUT) refused for all 5 mappings (Linux < 5.4?)']);
  });

  it('does nothing, after saying why once, without koffi or without /proc', () => {
    const reasons: string[] = [];
    let tries = 0;
    const noKoffi = createPageOut({
      loadKoffi: () => {
        tries += 1;
        throw new Error("Cannot find module 'koffi'");
      },
      onUnavailable: (reason) => reasons.push(reason),
    });
    expect(noKoffi()).toBeUndefined();
    expect(noKoffi()).toBeUndefined();
    expect(tries).toBe(1);
    const fake = fakeKoffi();
    const noProc = createPageOut({
      loadKoffi: () => fake.koffi,
      readMaps: () => {
        throw new Error("ENOENT: no such file or directory, open '/proc/self/maps'");
      },
      readStatus: () => STATUS(1),
      onUnavailable: (reason) => reasons.push(reason),
    });
    expect(noProc()).toBeUndefined();
    expect(noProc()).toBeUndefined();
    expect(fake.calls).toEqual([]);
    expect(reasons).toEqual([
      "Cannot find module 'koffi'",
      "this process's mappings: ENOENT: no such file or directory, open '/proc/self/maps'",
    ]);
  });

  it("advises this process's own mappings through the real koffi and kernel, none refused", () => {
    const reasons: string[] = [];
    const result = createPageOut({ onUnavailable: (reason) => reasons.push(reason) })();
    expect(reasons).toEqual([]);
    expect(result?.refused).toBe(0);
    expect(result?.advised).toBeGreaterThan(3);
    expect(result?.residentFileKiB.before).toBeGreaterThan(0);
    expect(result?.residentFileKiB.after).toBeGreaterThan(0);
  });
});
