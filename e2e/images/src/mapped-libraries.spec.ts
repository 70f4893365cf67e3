import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elfMachine, foreignMappings, mappedFiles } from './mapped-libraries';

// The check that the arm64 runs under qemu load only their image's arm64 libraries, on made-up maps: it must
// flag a host library, a file of the wrong architecture and a non-ELF file, and accept the image's own.

/** A 64-bit little-endian ELF header of `machine`, enough for elfMachine. */
function elfHeader(machine: number): Buffer {
  const header = Buffer.alloc(64);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(header);
  header.writeUInt16LE(3, 16); // ET_DYN
  header.writeUInt16LE(machine, 18);
  return header;
}

describe('mapped-libraries', () => {
  let rootfs: string;

  beforeAll(() => {
    rootfs = mkdtempSync(join(tmpdir(), 'kdp-maps-'));
    mkdirSync(join(rootfs, 'lib/aarch64-linux-gnu'), { recursive: true });
    mkdirSync(join(rootfs, 'app'), { recursive: true });
    writeFileSync(join(rootfs, 'lib/aarch64-linux-gnu/libc.so.6'), elfHeader(183));
    writeFileSync(join(rootfs, 'lib/aarch64-linux-gnu/libx86.so'), elfHeader(62));
    writeFileSync(join(rootfs, 'app/main.js'), 'console.log(1)\n');
  });

  afterAll(() => rmSync(rootfs, { recursive: true, force: true }));

  const line = (path: string): string => `4000000000-4000001000 r-xp 00000000 fd:01 1234   ${path}`;

  it('lists each mapped file once, without pseudo-paths, anonymous maps or a "(deleted)" suffix', () => {
    const maps = [
      line('/r/lib/libc.so.6'),
      line('/r/lib/libc.so.6'),
      line('/r/app/a b.node (deleted)'),
      '5500000000-5500001000 rw-p 00000000 00:00 0 ',
      '5500001000-5500002000 rw-p 00000000 00:00 0   [stack]',
      '',
    ].join('\n');
    expect(mappedFiles(maps)).toEqual(['/r/app/a b.node', '/r/lib/libc.so.6']);
  });

  it("reads an ELF header's machine, and nothing from a file that is no ELF", () => {
    expect(elfMachine(join(rootfs, 'lib/aarch64-linux-gnu/libc.so.6'))).toBe(183);
    expect(elfMachine(join(rootfs, 'app/main.js'))).toBeUndefined();
  });

  it("accepts the image's own arm64 libraries and flags a host file, another architecture and a non-ELF file", () => {
    const own = line(join(rootfs, 'lib/aarch64-linux-gnu/libc.so.6'));
    expect(foreignMappings(own, rootfs, 'arm64')).toEqual([]);
    const maps = [
      own,
      line(process.execPath),
      line(join(rootfs, 'lib/aarch64-linux-gnu/libx86.so')),
      line(join(rootfs, 'app/main.js')),
    ].join('\n');
    expect(foreignMappings(maps, rootfs, 'arm64').sort()).toEqual(
      [
        `${join(rootfs, 'app/main.js')}: e_machine undefined, not 183`,
        `${join(rootfs, 'lib/aarch64-linux-gnu/libx86.so')}: e_machine 62, not 183`,
        `${process.execPath}: outside the image`,
      ].sort(),
    );
    // The same x86-64 file is right for an amd64 image.
    expect(foreignMappings(line(join(rootfs, 'lib/aarch64-linux-gnu/libx86.so')), rootfs, 'amd64')).toEqual(
      [],
    );
  });
});
