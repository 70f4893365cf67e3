import type { Sysfs } from '../sysfs/create-sysfs';
import { isPciAddress } from './pci-address';

/** One `virtfnN` link of a physical function: the VF's index and PCI address. */
export interface VirtfnLink {
  readonly index: number;
  readonly address: string;
}

/**
 * Reads the `virtfnN` links in a PF's sysfs directory (`entries` when the caller already listed it), sorted by
 * index; links that are dangling or do not name a PCI address are left out.
 */
export async function readVirtfnLinks(
  sysfs: Sysfs,
  dir: string,
  entries?: readonly string[],
): Promise<VirtfnLink[]> {
  const links = (entries ?? (await sysfs.list(dir)))
    .map((name) => ({ name, index: /^virtfn(\d{1,5})$/.exec(name)?.[1] }))
    .filter((e): e is { name: string; index: string } => e.index !== undefined);
  const vfs = await Promise.all(
    links.map(async ({ name, index }) => ({
      index: Number(index),
      address: await sysfs.readLinkName(`${dir}/${name}`),
    })),
  );
  return vfs
    .filter((vf): vf is VirtfnLink => vf.address !== undefined && isPciAddress(vf.address))
    .sort((a, b) => a.index - b.index);
}
