import type { PciDevice } from '@kdp/topology';
import type { Gpu } from './gpu';
import { KFD_LINK_XGMI, type KfdTopology } from './read-kfd-topology';
import { boundToDriver, drmNodes, exclude, nodeProblems, pciGpu, type ScanContext } from './scan-context';

/**
 * One AMD PCI function bound to amdgpu: its KFD topology node (by location_id), /dev/kfd, and its
 * /dev/dri/cardN and renderDN nodes; XGMI peers from the node's io_links/p2p_links.
 */
export async function scanAmd(
  ctx: ScanContext,
  pci: PciDevice,
  kfd: KfdTopology | undefined,
): Promise<Gpu[]> {
  if (!boundToDriver(ctx, pci, ['amdgpu'], 'amdgpu is not loaded for this GPU')) return [];
  if (kfd === undefined) {
    exclude(ctx, pci, '/sys/class/kfd is absent (the amdgpu compute driver, KFD, is not loaded)');
    return [];
  }
  const node = kfd.byAddress.get(pci.address);
  if (node === undefined) {
    exclude(ctx, pci, 'no KFD topology node lists this GPU');
    return [];
  }
  const drm = await drmNodes(ctx, pci);
  const render = drm.render ?? (node.renderMinor !== undefined ? `renderD${node.renderMinor}` : undefined);
  if (drm.card === undefined || render === undefined) {
    exclude(ctx, pci, `no DRM ${drm.card === undefined ? 'card' : 'render'} node under ${pci.sysfsPath}/drm`);
    return [];
  }
  const deviceNodes = [`/dev/dri/${drm.card}`, `/dev/dri/${render}`];
  const productName = await ctx.sysfs.read(`${pci.sysfsPath}/product_name`);
  const model =
    productName !== undefined && productName !== ''
      ? productName.slice(0, 200)
      : `AMD GPU ${pci.device ?? ''}`.trim();
  const xgmiPeers = [
    ...new Set(
      node.links
        .filter((link) => link.type === KFD_LINK_XGMI)
        .map((link) => kfd.byNode.get(link.to)?.pciAddress)
        .filter((address): address is string => address !== undefined && address !== pci.address),
    ),
  ].sort();
  const base = pciGpu(pci, model);
  return [
    {
      ...base,
      kind: 'amd',
      deviceNodes,
      sharedNodes: ['/dev/kfd'],
      attributes: {
        ...base.attributes,
        gpuId: String(node.gpuId),
        kfdNode: String(node.node),
        ...(xgmiPeers.length > 0 ? { xgmiPeers: xgmiPeers.join(',') } : {}),
      },
      problems: await nodeProblems(ctx, ['/dev/kfd', ...deviceNodes]),
      xgmiPeers,
    },
  ];
}
