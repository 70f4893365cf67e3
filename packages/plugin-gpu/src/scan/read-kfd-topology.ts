import type { Sysfs } from '@kdp/topology';
import { kfdPciAddress, parseKfdProperties } from './parse-kfd-properties';

/** Link types in KFD `io_links`/`p2p_links` properties. */
export const KFD_LINK_PCIE = 2;
export const KFD_LINK_XGMI = 11;

/** One KFD GPU node. */
export interface KfdGpuNode {
  /** Index of the node directory under topology/nodes. */
  readonly node: number;
  readonly gpuId: number;
  /** The PCI address `location_id` decodes to; on MI300-class GPUs its function is the partition index. */
  readonly pciAddress: string;
  /** Domain, bus and device of that address (`0000:05:00`): the partitions of one GPU share it. */
  readonly slot: string;
  readonly renderMinor?: number;
  /** `num_xcc`: the compute dies (XCCs) of the node — of the partition on a partitioned GPU. */
  readonly xccs?: number;
  /** Other nodes this one links to, with the link type (2 PCIe, 11 XGMI). */
  readonly links: readonly { readonly to: number; readonly type: number }[];
}

/** KFD topology: undefined when /sys/class/kfd is absent (compute driver not loaded). */
export interface KfdTopology {
  readonly byAddress: ReadonlyMap<string, KfdGpuNode>;
  readonly byNode: ReadonlyMap<number, KfdGpuNode>;
  /** The GPU nodes of each PCI slot (`0000:05:00`), by node number: one per compute partition. */
  readonly bySlot: ReadonlyMap<string, readonly KfdGpuNode[]>;
}

const NODES = 'class/kfd/kfd/topology/nodes';

/** Reads the GPU nodes of the KFD topology (CPU nodes, with gpu_id 0, are skipped). */
export async function readKfdTopology(sysfs: Sysfs, warnings: string[]): Promise<KfdTopology | undefined> {
  if (!(await sysfs.exists('class/kfd/kfd'))) return undefined;
  const byAddress = new Map<string, KfdGpuNode>();
  const byNode = new Map<number, KfdGpuNode>();
  const bySlot = new Map<string, KfdGpuNode[]>();
  for (const name of await sysfs.list(NODES)) {
    if (!/^\d{1,4}$/.test(name)) continue;
    const dir = `${NODES}/${name}`;
    const gpuId = await sysfs.readInt(`${dir}/gpu_id`);
    if (gpuId === undefined || gpuId === 0) continue;
    const text = await sysfs.read(`${dir}/properties`);
    const props = parseKfdProperties(text ?? '');
    const location = props.get('location_id');
    const address = location === undefined ? undefined : kfdPciAddress(location, props.get('domain') ?? 0);
    if (address === undefined) {
      warnings.push(`kfd node ${name}: no usable location_id in properties; skipped`);
      continue;
    }
    const links: { to: number; type: number }[] = [];
    for (const kind of ['io_links', 'p2p_links']) {
      for (const link of await sysfs.list(`${dir}/${kind}`)) {
        const linkProps = parseKfdProperties((await sysfs.read(`${dir}/${kind}/${link}/properties`)) ?? '');
        const to = linkProps.get('node_to');
        const type = linkProps.get('type');
        if (to !== undefined && type !== undefined) links.push({ to, type });
      }
    }
    const render = props.get('drm_render_minor');
    const xccs = props.get('num_xcc');
    const entry: KfdGpuNode = {
      node: Number(name),
      gpuId,
      pciAddress: address,
      slot: address.slice(0, address.lastIndexOf('.')),
      ...(render !== undefined && render > 0 ? { renderMinor: render } : {}),
      ...(xccs !== undefined && xccs > 0 ? { xccs } : {}),
      links,
    };
    byAddress.set(address, entry);
    byNode.set(entry.node, entry);
    bySlot.set(entry.slot, [...(bySlot.get(entry.slot) ?? []), entry]);
  }
  for (const nodes of bySlot.values()) nodes.sort((a, b) => a.node - b.node);
  return { byAddress, byNode, bySlot };
}
