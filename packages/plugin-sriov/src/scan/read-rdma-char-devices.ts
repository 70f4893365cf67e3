import type { Sysfs } from '@kdp/topology';

const CLASSES: readonly { readonly dir: string; readonly pattern: RegExp }[] = [
  { dir: 'class/infiniband_verbs', pattern: /^uverbs\d+$/ },
  { dir: 'class/infiniband_mad', pattern: /^(?:umad|issm)\d+$/ },
  { dir: 'class/infiniband_cm', pattern: /^ucm\d+$/ },
];

/** The sysfs class directories whose character devices belong to RDMA devices (their `ibdev`). */
export const RDMA_CHAR_DEVICE_CLASSES: readonly string[] = CLASSES.map(({ dir }) => dir);

/** The shared RDMA connection manager node every RDMA device gets. */
export const RDMA_CM = '/dev/infiniband/rdma_cm';

/**
 * Maps each wanted RDMA device (`mlx5_3`) to its character devices, as rdmamap does: every uverbsN, umadN,
 * issmN and ucmN whose `ibdev` names it (all ports, not just the first), then `/dev/infiniband/rdma_cm`.
 */
export async function readRdmaCharDevices(
  sysfs: Sysfs,
  wanted: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const name of wanted) found.set(name, []);
  for (const { dir, pattern } of CLASSES) {
    const entries = (await sysfs.list(dir)).filter((entry) => pattern.test(entry));
    const owners = await Promise.all(entries.map((entry) => sysfs.read(`${dir}/${entry}/ibdev`)));
    entries.forEach((entry, i) => {
      const owner = owners[i];
      if (owner !== undefined) found.get(owner)?.push(`/dev/infiniband/${entry}`);
    });
  }
  for (const list of found.values()) list.push(RDMA_CM);
  return found;
}
