import type { ExcludedDevice } from '@kdp/core';
import type { PciDevice, Sysfs } from '@kdp/topology';
import { checkDevNode } from './check-dev-node';

/** What the per-vendor scanners share: confined readers, the /dev root and the scan's findings. */
export interface ScanContext {
  readonly sysfs: Sysfs;
  /** procfs, read through the same confined reader. */
  readonly procfs: Sysfs;
  readonly devRoot: string;
  readonly excluded: ExcludedDevice[];
  readonly warnings: string[];
}

/** Adds an `excluded` entry for a PCI function. */
export function exclude(ctx: ScanContext, pci: PciDevice, reason: string): void {
  ctx.excluded.push({ path: `/sys/bus/pci/devices/${pci.address}`, reason });
}

/** Checks device nodes; returns the problems (one per missing or wrong node). */
export async function nodeProblems(ctx: ScanContext, hostPaths: readonly string[]): Promise<string[]> {
  const states = await Promise.all(hostPaths.map((path) => checkDevNode(ctx.devRoot, path)));
  return states.flatMap((state) => (state.ok ? [] : [state.reason]));
}

/** The subset of `hostPaths` that exist as device nodes (optional nodes). */
export async function presentNodes(ctx: ScanContext, hostPaths: readonly string[]): Promise<string[]> {
  const states = await Promise.all(hostPaths.map((path) => checkDevNode(ctx.devRoot, path)));
  return hostPaths.filter((_, i) => states[i]?.ok === true);
}

/** The NUMA nodes of a PCI function as a list ([] when unknown). */
export function numaOf(pci: PciDevice): number[] {
  return pci.numaNode === undefined ? [] : [pci.numaNode];
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

/** True when the PCI function is bound to one of `drivers`; otherwise excludes it with the reason. */
export function boundToDriver(
  ctx: ScanContext,
  pci: PciDevice,
  drivers: readonly string[],
  notLoaded: string,
): boolean {
  if (pci.driver !== undefined && drivers.includes(pci.driver)) return true;
  exclude(
    ctx,
    pci,
    pci.driver === undefined
      ? `no driver bound (${notLoaded})`
      : `bound to ${pci.driver}, not ${drivers.join(' or ')}`,
  );
  return false;
}
