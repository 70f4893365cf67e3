import type { Host } from '@kdp/topology';
import type { UsbStringCache } from './read-usb-device';
import { scanUsbDevices, type UsbScan } from './scan-usb-devices';
import type { UsbDevice } from './usb-device';

/** One scan of the machine: the USB devices and the current matches of every configured `/dev` glob. */
export interface UsbHostScan extends UsbScan {
  /** Host paths per glob (`/dev/ttyS*` → `/dev/ttyS0`, …), naturally sorted. */
  readonly globs: ReadonlyMap<string, readonly string[]>;
  /** What the scan itself has to say (no USB bus at all). */
  readonly warnings: readonly string[];
}

/** What {@link scanUsbHost} reads and keeps between scans. */
export interface UsbHostScanOptions {
  readonly host: Host;
  /** The `/dev` globs of the configured path groups. */
  readonly patterns: readonly string[];
  /** Descriptor strings per plug, kept across scans. */
  readonly strings?: UsbStringCache;
  /** Fills descriptor strings sysfs lacks (the `usb` package); sysfs values always win. */
  readonly enrich?: (devices: readonly UsbDevice[]) => Promise<readonly UsbDevice[]>;
}

/** Reads every USB device from sysfs and expands the path globs in /dev; never throws for garbage. */
export async function scanUsbHost(options: UsbHostScanOptions): Promise<UsbHostScan> {
  const { host } = options;
  const [scan, globs] = await Promise.all([
    scanUsbDevices(host.sysfs, options.strings),
    Promise.all(options.patterns.map(async (p) => [p, await host.devfs.glob(p)] as const)),
  ]);
  const devices = options.enrich ? await options.enrich(scan.devices) : scan.devices;
  const warnings = scan.hasUsbBus
    ? []
    : [`no USB bus under ${host.sysfs.root}/bus/usb/devices: zero USB devices`];
  return { ...scan, devices, globs: new Map(globs), warnings };
}
