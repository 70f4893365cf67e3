import { cpSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  corruptTree,
  listTreeEntries,
  restoreTree,
  treeCorruptions,
  type TreeCorruption,
} from './corrupt-tree';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import { createSysfsFixture, type SysfsFixture } from './sysfs-fixture';
import { createTempDir } from './temp-dir';

/** A small machine: one NUMA node, a NIC PF on i40e with a VF, a device node. */
function createSmallMachine(): SysfsFixture {
  const fx = createSysfsFixture();
  fx.addNumaNode({ id: 0, cpus: '0-3' });
  fx.addPciDevice({
    address: '0000:3b:00.0',
    vendor: '0x8086',
    driver: 'i40e',
    numaNode: 0,
    sriovTotalVfs: 2,
  });
  fx.addPciDevice({ address: '0000:3b:02.0', vendor: '0x8086', driver: 'iavf', physfn: '0000:3b:00.0' });
  fx.addDevNode('/dev/vfio/7', 243, 0);
  return fx;
}

describe('corruptTree', () => {
  let fx: SysfsFixture;
  let sentinel: EscapeSentinel;
  beforeEach(() => {
    fx = createSmallMachine();
    sentinel = createEscapeSentinel();
  });
  afterEach(() => {
    fx.remove();
    sentinel.remove();
  });

  const at = (path: string) => join(fx.base, path);
  const apply = (...corruptions: TreeCorruption[]) => corruptTree(fx.base, corruptions, sentinel);
  const vendor = 'sys/devices/pci0000:3b/0000:3b:00.0/vendor';
  const bus = 'sys/bus/pci/devices/0000:3b:00.0';

  it('lists entries without following links, only under the roots asked for', () => {
    const entries = listTreeEntries(fx.base, ['sys', 'dev']);
    expect(entries).toContainEqual({ path: bus, kind: 'link' });
    expect(entries).toContainEqual({ path: vendor, kind: 'file' });
    expect(entries).toContainEqual({ path: 'dev/vfio/7', kind: 'file' });
    expect(entries.some((e) => e.path.startsWith(`${bus}/`))).toBe(false);
    expect(entries.some((e) => e.path.startsWith('proc'))).toBe(false);
  });

  it('replaces an entry by garbage bytes, a sparse file, a FIFO or a directory, or deletes it', () => {
    const bytes = Uint8Array.from([0xff, 0xfe, 0x2d, 0x31]);
    apply(
      { path: vendor, replacement: { kind: 'file', content: bytes } },
      {
        path: 'sys/devices/pci0000:3b/0000:3b:00.0/class',
        replacement: { kind: 'sparse-file', bytes: 3 * 2 ** 30 },
      },
      { path: 'sys/devices/pci0000:3b/0000:3b:00.0/device', replacement: { kind: 'fifo' } },
      { path: 'dev/vfio/7', replacement: { kind: 'directory' } },
      { path: 'sys/devices/pci0000:3b/0000:3b:00.0/numa_node', replacement: { kind: 'delete' } },
    );
    expect([...readFileSync(at(vendor))]).toEqual([...bytes]);
    expect(statSync(at('sys/devices/pci0000:3b/0000:3b:00.0/class')).size).toBe(3 * 2 ** 30);
    expect(lstatSync(at('sys/devices/pci0000:3b/0000:3b:00.0/device')).isFIFO()).toBe(true);
    expect(lstatSync(at('dev/vfio/7')).isDirectory()).toBe(true);
    expect(
      lstatSync(at('sys/devices/pci0000:3b/0000:3b:00.0/numa_node'), { throwIfNoEntry: false }),
    ).toBeUndefined();
  });

  it('makes dangling, looping, climbing, misdirected and escaping links', () => {
    const driver = 'sys/devices/pci0000:3b/0000:3b:00.0/driver';
    apply(
      { path: driver, replacement: { kind: 'link', target: { to: 'dangling' } } },
      { path: vendor, replacement: { kind: 'link', target: { to: 'loop' } } },
      {
        path: 'sys/devices/pci0000:3b/0000:3b:00.0/class',
        replacement: { kind: 'link', target: { to: 'ancestor', levels: 6 } },
      },
      { path: 'dev/vfio/7', replacement: { kind: 'link', target: { to: 'entry', path: vendor } } },
      {
        path: bus,
        replacement: { kind: 'link', target: { to: 'sentinel', entry: 'bait-directory', absolute: false } },
      },
      {
        path: 'sys/bus/pci/devices/0000:3b:02.0',
        replacement: { kind: 'link', target: { to: 'sentinel', entry: 'fifo', absolute: true } },
      },
    );
    expect(() => statSync(at(driver))).toThrow(/ENOENT/);
    expect(() => statSync(at(vendor))).toThrow(/ELOOP/);
    // 6 levels wrap around to the 3 directories between the link and the root (6 → 3): the root, never above.
    expect(realpathSync(at('sys/devices/pci0000:3b/0000:3b:00.0/class'))).toBe(realpathSync(fx.root));
    expect(readlinkSync(at('dev/vfio/7'))).toBe('../../sys/devices/pci0000:3b/0000:3b:00.0/vendor');
    expect(readlinkSync(at(bus)).startsWith('../')).toBe(true);
    expect(realpathSync(at(bus))).toBe(realpathSync(sentinel.path('bait-directory')));
    expect(readlinkSync(at('sys/bus/pci/devices/0000:3b:02.0'))).toBe(sentinel.path('fifo'));
  });

  it('never writes through a link: an entry below a replaced directory is skipped', () => {
    const device = 'sys/devices/pci0000:3b/0000:3b:00.0';
    const done = apply(
      {
        path: device,
        replacement: { kind: 'link', target: { to: 'sentinel', entry: 'bait-directory', absolute: true } },
      },
      { path: vendor, replacement: { kind: 'file', content: new Uint8Array() } },
      { path: `${device}/gone`, replacement: { kind: 'delete' } },
    );
    expect(done.map((c) => c.path)).toEqual([device]);
    expect(sentinel.problems()).toEqual([]);
  });

  it('random corruptions never touch the sentinel, and restoreTree puts every entry back', () => {
    const workDir = createTempDir('kdp-corrupt-');
    const work = workDir.path;
    cpSync(fx.base, work, { recursive: true, verbatimSymlinks: true });
    const shape = (base: string): string[] =>
      listTreeEntries(base).map((e) => {
        const path = join(base, e.path);
        if (e.kind === 'file') return `${e.path} = ${readFileSync(path, 'latin1')}`;
        return e.kind === 'link' ? `${e.path} -> ${readlinkSync(path)}` : `${e.path} ${e.kind}`;
      });
    const pristine = shape(fx.base);
    try {
      fc.assert(
        fc.property(treeCorruptions(fc, listTreeEntries(fx.base, ['sys', 'dev'])), (corruptions) => {
          const done = corruptTree(work, corruptions, sentinel);
          expect(done[0]).toEqual(corruptions[0]); // the first one always applies: its parents are intact
          expect(sentinel.problems()).toEqual([]);
          restoreTree(work, fx.base, done);
          expect(shape(work)).toEqual(pristine);
        }),
        { seed: 1800, numRuns: 25 },
      );
    } finally {
      workDir.remove();
    }
  });
});
