import type { PciDevice } from '@kdp/topology';
import type { Gpu } from './gpu';
import {
  boundToDriver,
  drmNodes,
  exclude,
  nodeProblems,
  pciGpu,
  presentNodes,
  type ScanContext,
} from './scan-context';

/**
 * One Intel PCI function bound to i915 or xe: /dev/dri/cardN and renderDN, plus read-only mounts of the
 * /dev/dri/by-path links where present (as Intel's plugin gives). A PF with VFs enabled is not advertised.
 */
export async function scanIntel(ctx: ScanContext, pci: PciDevice): Promise<Gpu[]> {
  const driver = boundToDriver(ctx, pci, ['i915', 'xe'], 'neither i915 nor xe is loaded for this GPU');
  if (driver === undefined) return [];
  if (pci.sriov !== undefined && pci.sriov.numVfs > 0) {
    exclude(
      ctx,
      pci,
      `SR-IOV physical function with ${pci.sriov.numVfs} VFs enabled; its VFs are advertised instead`,
    );
    return [];
  }
  const drm = await drmNodes(ctx, pci);
  if (drm.card === undefined) {
    exclude(ctx, pci, `no DRM card node under ${pci.sysfsPath}/drm`);
    return [];
  }
  const deviceNodes = [
    `/dev/dri/${drm.card}`,
    ...(drm.render !== undefined ? [`/dev/dri/${drm.render}`] : []),
  ];
  const byPath = await presentNodes(ctx, [
    `/dev/dri/by-path/pci-${pci.address}-card`,
    `/dev/dri/by-path/pci-${pci.address}-render`,
  ]);
  const base = pciGpu(pci, `Intel GPU ${pci.device ?? ''}`.trim());
  return [
    {
      ...base,
      kind: driver,
      deviceNodes,
      mounts: byPath.map((path) => ({ containerPath: path, hostPath: path, readOnly: true })),
      attributes: { ...base.attributes, card: drm.card },
      problems: await nodeProblems(ctx, deviceNodes),
    },
  ];
}
