import { closeSync, lstatSync, openSync, readSync } from 'node:fs';
import type { ImageArch } from './image-node';

/** ELF `e_machine` of each image architecture: EM_X86_64 and EM_AARCH64. */
export const elfMachines: Readonly<Record<ImageArch, number>> = { amd64: 62, arm64: 183 };

/** The files mapped into a process, from its /proc/<pid>/maps text: absolute paths, sorted, each once. */
export function mappedFiles(maps: string): string[] {
  const paths = maps
    .split('\n')
    .map((line) => line.trim().split(/\s+/).slice(5).join(' '))
    .filter((path) => path.startsWith('/'))
    .map((path) => path.replace(/ \(deleted\)$/, ''));
  return [...new Set(paths)].sort();
}

/** A 64-bit little-endian ELF file's `e_machine`, or undefined when `path` is no such file. */
export function elfMachine(path: string): number | undefined {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    if (readSync(fd, header, 0, header.length, 0) < header.length) return undefined;
  } finally {
    closeSync(fd);
  }
  const elf = header.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  // EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian)
  return elf && header[4] === 2 && header[5] === 1 ? header.readUInt16LE(18) : undefined;
}

/**
 * What is wrong with a process's mappings for an image of `arch` unpacked at `rootfs`: every mapped file
 * must be a regular file inside `rootfs` and an ELF object of `arch`. Returns one line per offending file.
 */
export function foreignMappings(maps: string, rootfs: string, arch: ImageArch): string[] {
  return mappedFiles(maps).flatMap((path) => {
    if (!path.startsWith(`${rootfs}/`)) return [`${path}: outside the image`];
    if (!lstatSync(path).isFile()) return [`${path}: not a regular file`];
    const machine = elfMachine(path);
    return machine === elfMachines[arch] ? [] : [`${path}: e_machine ${machine}, not ${elfMachines[arch]}`];
  });
}
