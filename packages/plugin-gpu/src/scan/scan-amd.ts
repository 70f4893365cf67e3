import type { PciDevice } from '@kdp/topology';
import type { Gpu } from './gpu';
import { KFD_LINK_XGMI, readKfdTopology, type KfdGpuNode, type KfdTopology } from './read-kfd-topology';
import { readPartitionModes, type PartitionModes } from './read-partition-modes';
import { readXcpDevices, type XcpDevice } from './read-xcp-devices';
import { boundToDriver, drmNodes, exclude, nodeProblems, pciGpu, type ScanContext } from './scan-context';

/** A device found for one KFD node, before its XGMI peers are known. */
interface AmdDevice {
  readonly gpu: Gpu;
  readonly node: KfdGpuNode;
}

/**
 * The KFD nodes of a GPU: the node at its address and, on the GPU's function 0, the nodes of its slot at other
 * functions that no amdgpu function holds (MI300-class GPUs put the partition index in `location_id`'s function bits).
 */
function kfdNodesOf(kfd: KfdTopology, pci: PciDevice, amdgpu: ReadonlySet<string>): KfdGpuNode[] {
  const slot = pci.address.slice(0, pci.address.lastIndexOf('.'));
  const primary = pci.address.endsWith('.0');
  return (kfd.bySlot.get(slot) ?? []).filter(
    (node) => node.pciAddress === pci.address || (primary && !amdgpu.has(node.pciAddress)),
  );
}

/** The partition-mode attributes shown by `discover`. */
function modeAttributes(modes: PartitionModes): Record<string, string> {
  const entries: [string, string | undefined][] = [
    ['computePartition', modes.compute],
    ['memoryPartition', modes.memory],
    ['availableComputePartitions', modes.availableCompute],
    ['availableMemoryPartitions', modes.availableMemory],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The device ID and DRM nodes of one KFD node: the PCI function's own, or an `amdgpu_xcp_N` platform device's. */
function partitionNodes(
  pci: PciDevice,
  node: KfdGpuNode,
  drm: { card?: string; render?: string },
  xcp: ReadonlyMap<number, XcpDevice>,
  partitioned: boolean,
): { id: string; card?: string; render?: string } {
  const render = drm.render ?? (node.renderMinor !== undefined ? `renderD${node.renderMinor}` : undefined);
  if (!partitioned || (node.renderMinor !== undefined && `renderD${node.renderMinor}` === drm.render))
    return {
      id: pci.address,
      ...(drm.card !== undefined ? { card: drm.card } : {}),
      ...(render ? { render } : {}),
    };
  const platform = node.renderMinor === undefined ? undefined : xcp.get(node.renderMinor);
  return platform === undefined
    ? { id: '' }
    : { id: platform.name, card: platform.card, render: platform.render };
}

/**
 * One AMD PCI function bound to amdgpu: one device per KFD node (one per compute partition in DPX/QPX/CPX, the first
 * under the PCI address, the others as `amdgpu_xcp_N`, as ROCm's plugin names them), each with /dev/kfd and its own
 * card and render node, the NUMA node and PCIe path of the GPU, and its partition modes.
 */
async function scanAmd(
  ctx: ScanContext,
  pci: PciDevice,
  kfd: KfdTopology,
  xcp: ReadonlyMap<number, XcpDevice>,
  amdgpu: ReadonlySet<string>,
): Promise<AmdDevice[]> {
  const nodes = kfdNodesOf(kfd, pci, amdgpu);
  if (nodes.length === 0) {
    exclude(ctx, pci, 'no KFD topology node lists this GPU');
    return [];
  }
  const drm = await drmNodes(ctx, pci);
  const modes = await readPartitionModes(ctx, pci);
  const productName = await ctx.sysfs.read(`${pci.sysfsPath}/product_name`);
  const model =
    productName !== undefined && productName !== ''
      ? productName.slice(0, 200)
      : `AMD GPU ${pci.device ?? ''}`.trim();
  const base = pciGpu(pci, model);
  const partitioned = nodes.length > 1;
  const found: AmdDevice[] = [];
  for (const node of nodes) {
    const own = partitionNodes(pci, node, drm, xcp, partitioned);
    if (own.id === '') {
      ctx.excluded.push({
        path: `/sys/class/kfd/kfd/topology/nodes/${node.node}`,
        reason: `compute partition of ${pci.address}: no amdgpu_xcp platform device or DRM node has render minor ${node.renderMinor ?? '(none)'}`,
      });
      continue;
    }
    if (own.card === undefined || own.render === undefined) {
      exclude(
        ctx,
        pci,
        `no DRM ${own.card === undefined ? 'card' : 'render'} node under ${pci.sysfsPath}/drm`,
      );
      continue;
    }
    const deviceNodes = [`/dev/dri/${own.card}`, `/dev/dri/${own.render}`];
    found.push({
      node,
      gpu: {
        ...base,
        id: own.id,
        kind: 'amd',
        deviceNodes,
        sharedNodes: ['/dev/kfd'],
        attributes: {
          ...base.attributes,
          gpuId: String(node.gpuId),
          kfdNode: String(node.node),
          ...(partitioned ? { partition: node.pciAddress.slice(-1) } : {}),
          ...modeAttributes(modes),
        },
        problems: await nodeProblems(ctx, ['/dev/kfd', ...deviceNodes]),
        ...(modes.compute !== undefined || modes.memory !== undefined
          ? {
              partitionModes: {
                ...(modes.compute !== undefined ? { compute: modes.compute } : {}),
                ...(modes.memory !== undefined ? { memory: modes.memory } : {}),
              },
              ...(node.xccs !== undefined ? { xccs: node.xccs } : {}),
            }
          : {}),
      },
    });
  }
  return found;
}

/** A device with the devices of other GPUs its KFD node reaches over XGMI (IDs; the attribute lists their GPUs). */
function withXgmiPeers({ gpu, node }: AmdDevice, byNode: ReadonlyMap<number, Gpu>): Gpu {
  const peers = node.links
    .filter((link) => link.type === KFD_LINK_XGMI)
    .map((link) => byNode.get(link.to))
    .filter((peer): peer is Gpu => peer !== undefined && peer.pciAddress !== gpu.pciAddress);
  if (peers.length === 0) return gpu;
  const addresses = [...new Set(peers.map((peer) => peer.pciAddress))].sort();
  return {
    ...gpu,
    attributes: { ...gpu.attributes, xgmiPeers: addresses.join(',') },
    xgmiPeers: [...new Set(peers.map((peer) => peer.id))].sort(),
  };
}

/** Warns when GPUs are in different partition modes (ROCm's plugin refuses `single` naming then). */
function warnMixedModes(ctx: ScanContext, gpus: readonly Gpu[]): void {
  const byMode = new Map<string, Set<string>>();
  for (const gpu of gpus) {
    const { compute, memory } = gpu.partitionModes ?? {};
    if (compute === undefined || memory === undefined) continue;
    const mode = `${compute}_${memory}`.toLowerCase();
    byMode.set(mode, (byMode.get(mode) ?? new Set()).add(gpu.pciAddress));
  }
  if (byMode.size < 2) return;
  const list = [...byMode.entries()].map(([mode, addresses]) => `${mode}: ${[...addresses].join(', ')}`);
  ctx.warnings.push(
    `AMD GPUs are in different partition modes (${list.join('; ')}): amd.resourceNamingStrategy mixed advertises one resource per mode, single advertises them all under one resource`,
  );
}

/**
 * Every AMD GPU candidate: those not bound to amdgpu, or without KFD, are excluded with the reason; the others become
 * one device per compute partition, with XGMI peers from the KFD topology's io_links/p2p_links.
 */
export async function scanAmdGpus(ctx: ScanContext, candidates: readonly PciDevice[]): Promise<Gpu[]> {
  const bound = candidates.filter((pci) =>
    boundToDriver(ctx, pci, ['amdgpu'], 'amdgpu is not loaded for this GPU'),
  );
  if (bound.length === 0) return [];
  const kfd = await readKfdTopology(ctx.sysfs, ctx.warnings);
  if (kfd === undefined) {
    for (const pci of bound)
      exclude(ctx, pci, '/sys/class/kfd is absent (the amdgpu compute driver, KFD, is not loaded)');
    return [];
  }
  const xcp = await readXcpDevices(ctx.sysfs);
  const amdgpu = new Set(bound.map((pci) => pci.address));
  const found: AmdDevice[] = [];
  for (const pci of bound) {
    try {
      found.push(...(await scanAmd(ctx, pci, kfd, xcp, amdgpu)));
    } catch (error) {
      ctx.warnings.push(`${pci.address}: ${String(error)}; skipped`);
    }
  }
  const byNode = new Map(found.map(({ gpu, node }) => [node.node, gpu]));
  const gpus = found.map((device) => withXgmiPeers(device, byNode));
  warnMixedModes(ctx, gpus);
  return gpus;
}
