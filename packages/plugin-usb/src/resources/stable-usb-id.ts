import type { UsbDevice } from '../scan/usb-device';

/** Longest base ID, leaving room for a `#<share>` suffix within the kubelet's 63 characters. */
const MAX_BASE = 56;

/** Keeps `A-Za-z0-9._:-`, replaces anything else with `_`, caps the length. */
export function sanitizeIdPart(value: string): string {
  return value.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, MAX_BASE);
}

/** The ID by port: `port-<portPath>` (stable per physical port, unlike devnum). */
export function portId(device: UsbDevice): string {
  return `port-${device.portPath}`;
}

/** The stable ID of a USB device: its serial where it has one, otherwise its port path. Never the devnum. */
export function stableUsbId(device: UsbDevice): string {
  return device.serial !== undefined ? sanitizeIdPart(device.serial) : portId(device);
}

/** The advertised IDs of a device shared `count` times: the base ID alone for 1, else `<base>#0` … `<base>#n-1`. */
export function shareIds(base: string, count: number): string[] {
  return count <= 1 ? [base] : Array.from({ length: count }, (_, i) => `${base}#${i}`);
}
