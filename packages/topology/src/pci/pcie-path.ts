import { isPciAddress } from './pci-address';

/** Where a PCI function hangs: its root complex and the bridges from the root port down to its parent. */
export interface PciePlacement {
  /** The root complex directory name, e.g. "pci0000:3a"; undefined when the path has none. */
  readonly rootComplex?: string;
  /** Bridge addresses from the root port down to the function's parent; [] when it sits on the root bus. */
  readonly bridges: readonly string[];
}

const rootComplexPattern = /^pci[0-9a-f]{4,8}:[0-9a-f]{2}$/;

/**
 * Reads the placement of a function out of its resolved sysfs path, e.g.
 * "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0" → root complex "pci0000:00",
 * bridges ["0000:00:01.0", "0000:01:00.0", "0000:02:08.0"]. Nested domains (Intel VMD) continue the chain.
 * Returns undefined when the path does not end in `address` under a root complex.
 */
export function pciePlacementFromPath(resolvedPath: string, address: string): PciePlacement | undefined {
  const segments = resolvedPath.split('/');
  const rootIndex = segments.findIndex((s) => rootComplexPattern.test(s));
  if (rootIndex < 0 || segments[segments.length - 1] !== address) return undefined;
  const chain = segments.slice(rootIndex + 1).filter((s) => isPciAddress(s));
  if (chain[chain.length - 1] !== address) return undefined;
  return { rootComplex: segments[rootIndex] as string, bridges: chain.slice(0, -1) };
}
