import type { ExcludedDevice } from '@kdp/core/plugin';
import type { Host, PciDevice } from '@kdp/topology';
import type { Gpu } from './gpu';

/** What the per-vendor scanners share: the confined host and the scan's findings. */
export interface ScanContext extends Host {
  readonly excluded: ExcludedDevice[];
  readonly warnings: string[];
  /** procfs directories listed, for the change probe. */
  readonly procfsDirs: string[];
}

/** Adds an `excluded` entry for a PCI function. */
export function exclude(ctx: ScanContext, pci: PciDevice, reason: string): void {
  ctx.excluded.push({ path: `/sys/bus/pci/devices/${pci.address}`, reason });
}

/** Checks device nodes; returns the problems (one per missing or wrong node). */
export async function nodeProblems(ctx: ScanContext, hostPaths: readonly string[]): Promise<string[]> {
  const states = await Promise.all(hostPaths.map((path) => ctx.devfs.node(path)));
  return states.flatMap((state) => (state.ok ? [] : [state.reason]));
}

/** The subset of `hostPaths` that exist as device nodes (optional nodes). */
export async function presentNodes(ctx: ScanContext, hostPaths: readonly string[]): Promise<string[]> {
  const present = await Promise.all(hostPaths.map((path) => ctx.devfs.hasNode(path)));
  return hostPaths.filter((_, i) => present[i]);
}

/** What a GPU takes from its PCI function: ID and address, locality, and the vendor/model/device/driver facts. */
export function pciGpu(pci: PciDevice, model: string) {
  return {
    id: pci.address,
    pciAddress: pci.address,
    model,
    numaNodes: pci.numaNode === undefined ? [] : [pci.numaNode],
    pciePath: pci.pciePath,
    sharedNodes: [],
    mounts: [],
    xgmiPeers: [],
    attributes: {
      vendor: pci.vendor ?? '',
      model,
      ...(pci.device !== undefined ? { device: pci.device } : {}),
      driver: pci.driver ?? '',
    },
  } satisfies Omit<Gpu, 'kind' | 'deviceNodes' | 'problems'>;
}

/** Names of DRM nodes under a PCI function (`cardN`, `renderDN`), sorted. */
export async function drmNodes(
  ctx: ScanContext,
  pci: PciDevice,
): Promise<{ card?: string; render?: string }> {
  const names = await ctx.sysfs.list(`${pci.sysfsPath}/drm`);
  const card = names.find((name) => /^card\d{1,4}$/.test(name));
  const render = names.find((name) => /^renderD\d{1,5}$/.test(name));
  return { ...(card !== undefined ? { card } : {}), ...(render !== undefined ? { render } : {}) };
}

/** The driver when the PCI function is bound to one of `drivers`; otherwise excludes it with the reason. */
export function boundToDriver<D extends string>(
  ctx: ScanContext,
  pci: PciDevice,
  drivers: readonly D[],
  notLoaded: string,
): D | undefined {
  if (drivers.some((driver) => driver === pci.driver)) return pci.driver as D;
  exclude(
    ctx,
    pci,
    pci.driver === undefined
      ? `no driver bound (${notLoaded})`
      : `bound to ${pci.driver}, not ${drivers.join(' or ')}`,
  );
  return undefined;
}
