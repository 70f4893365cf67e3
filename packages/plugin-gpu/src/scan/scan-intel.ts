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
 * The GPU's MEI nodes, as Intel's plugin finds them for its monitoring resource: the names under
 * `<bdf>/<aux>/mei/` of each auxiliary device `<aux>` named `….mei-…` (the GSC's: `i915.mei-gsc.768/mei/mei0`),
 * each `/dev/<name>` where present.
 */
async function meiNodes(ctx: ScanContext, pci: PciDevice): Promise<string[]> {
  const auxiliaries = (await ctx.sysfs.list(pci.sysfsPath)).filter((name) =>
    /^[\w-]+\.mei-[\w.-]+$/.test(name),
  );
  const names = (
    await Promise.all(auxiliaries.map((name) => ctx.sysfs.list(`${pci.sysfsPath}/${name}/mei`)))
  ).flat();
  return presentNodes(
    ctx,
    names.filter((name) => /^mei\d{1,4}$/.test(name)).map((name) => `/dev/${name}`),
  );
}

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
  const mei = await meiNodes(ctx, pci);
  return [
    {
      ...base,
      kind: driver,
      deviceNodes,
      mounts: byPath.map((path) => ({ containerPath: path, hostPath: path, readOnly: true })),
      ...(mei.length > 0 ? { meiNodes: mei } : {}),
      attributes: { ...base.attributes, card: drm.card },
      problems: await nodeProblems(ctx, deviceNodes),
    },
  ];
}
