import type { ExcludedDevice } from '@kdp/core/plugin';
import type { Sysfs } from '@kdp/topology';
import { isRootHubName, isUsbDeviceName, readUsbDevice, type UsbStringCache } from './read-usb-device';
import type { UsbDevice } from './usb-device';

/** One scan of `/sys/bus/usb/devices`. */
export interface UsbScan {
  /** Devices behind root ports, in port-path order; root hubs and interfaces are never devices here. */
  readonly devices: readonly UsbDevice[];
  /** Root hubs and unreadable devices, and why (paths relative to the sysfs root). */
  readonly skipped: readonly ExcludedDevice[];
  /** False when the host has no USB bus at all (`/sys/bus/usb/devices` absent). */
  readonly hasUsbBus: boolean;
}

/**
 * Scans every USB device under the sysfs root; never throws (garbage degrades one device). With a `cache`,
 * descriptor strings are read once per plug and entries of unplugged devices are dropped.
 */
export async function scanUsbDevices(sysfs: Sysfs, cache?: UsbStringCache): Promise<UsbScan> {
  const hasUsbBus = await sysfs.exists('bus/usb/devices');
  const names = await sysfs.list('bus/usb/devices');
  const skipped: ExcludedDevice[] = [];
  const candidates: string[] = [];
  for (const name of names) {
    if (isRootHubName(name)) skipped.push({ path: `bus/usb/devices/${name}`, reason: 'root hub' });
    else if (isUsbDeviceName(name)) candidates.push(name);
    // Anything else is an interface (`1-1.4:1.0`, `1-0:1.0` of a root hub) or not a USB device at all.
  }
  const reads = await Promise.all(candidates.map((name) => readUsbDevice(sysfs, name, cache)));
  if (cache !== undefined) {
    const live = new Set(
      reads.map((r) => (r.ok ? `${r.device.portPath}@${r.device.busnum}/${r.device.devnum}` : '')),
    );
    for (const key of cache.keys()) if (!live.has(key)) cache.delete(key);
  }
  const devices: UsbDevice[] = [];
  for (const read of reads) {
    if (read.ok) devices.push(read.device);
    else skipped.push({ path: read.path, reason: read.reason });
  }
  devices.sort((a, b) => comparePortPaths(a.portPath, b.portPath));
  return { devices, skipped, hasUsbBus };
}

/** Orders port paths numerically, bus first: `1-2` < `1-10` < `2-1`. */
export function comparePortPaths(a: string, b: string): number {
  const parts = (p: string): number[] => p.split(/[-.]/).map(Number);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
