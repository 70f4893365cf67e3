import { isPciAddress } from './pci-address';

/** The PCI function a sysfs device hangs below, as {@link nearestPciFunction} finds it. */
export interface PciAncestor {
  /** Its address, e.g. "0000:00:14.0". */
  readonly address: string;
  /** Its directory: the given path cut after that component (relative when the input was). */
  readonly path: string;
}

/**
 * The PCI function nearest above a resolved sysfs device path, or the path itself when it names one: the last
 * component named like a PCI address. "devices/pci0000:00/0000:00:14.0/usb1/1-4" → 0000:00:14.0 (the USB host
 * controller of device 1-4). Undefined when no component is one (platform and virtual devices). The path must
 * be resolved (links followed): a `bus/…` or `class/…` link path names no ancestors.
 */
export function nearestPciFunction(resolvedPath: string): PciAncestor | undefined {
  const segments = resolvedPath.split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i] as string;
    if (isPciAddress(segment)) return { address: segment, path: segments.slice(0, i + 1).join('/') };
  }
  return undefined;
}
