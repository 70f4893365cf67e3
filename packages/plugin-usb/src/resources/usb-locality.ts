import type { UsbDevice } from '../scan/usb-device';

/** Where a USB device sits, as preferred allocation takes it (a PluginDevice's `numaNodes` and `pciePath`). */
export interface UsbLocality {
  readonly numaNodes: readonly number[];
  readonly pciePath: readonly string[];
}

/**
 * The NUMA node of the device's host controller, and a path of two hops, `[controller, parent hub]`
 * (`['0000:00:14.0', '1-4']`; a controller that is not PCI stands as its root hub `usb<bus>`). The allocation
 * chooser prices a pair of devices by the hops their paths share: none (another controller on the NUMA node),
 * the first (same controller), both (same hub); so a container gets devices of one NUMA node, then of one
 * controller, then of one hub.
 */
export function usbLocality(device: UsbDevice): UsbLocality {
  return {
    numaNodes: device.numaNode !== undefined ? [device.numaNode] : [],
    pciePath: [device.controller ?? `usb${device.busnum}`, device.hubs.at(-1) ?? `usb${device.busnum}`],
  };
}
