import type { Host } from '@kdp/topology';
import { globListings } from './glob-listings';
import { scanUsbDevices, type UsbScan, type UsbScanCache } from './scan-usb-devices';
import type { UsbDevice } from './usb-device';

/** One scan of the machine: the USB devices and the current matches of every configured `/dev` glob. */
export interface UsbHostScan extends UsbScan {
  /** Host paths per glob (`/dev/ttyS*` → `/dev/ttyS0`, …), naturally sorted. */
  readonly globs: ReadonlyMap<string, readonly string[]>;
  /** The `/dev` directories whose listings decide what the globs match (see {@link globListings}). */
  readonly globDirs: readonly string[];
  /** The bus directories of `/dev/bus/usb` (`/dev/bus/usb/001`, …). */
  readonly busDirs: readonly string[];
  /** What the scan itself has to say (no USB bus at all). */
  readonly warnings: readonly string[];
}

/** What {@link scanUsbHost} reads and keeps between scans. */
export interface UsbHostScanOptions {
  readonly host: Host;
  /** The `/dev` globs of the configured path groups. */
  readonly patterns: readonly string[];
  /** Device reads kept across scans, so that a scan reads again only what changed. */
  readonly cache?: UsbScanCache;
  /** Fills descriptor strings sysfs lacks (the `usb` package); sysfs values always win. */
  readonly enrich?: (devices: readonly UsbDevice[]) => Promise<readonly UsbDevice[]>;
}

/** Reads every USB device from sysfs and expands the path globs in /dev; never throws for garbage. */
export async function scanUsbHost(options: UsbHostScanOptions): Promise<UsbHostScan> {
  const { host } = options;
  const [scan, globs, buses] = await Promise.all([
    scanUsbDevices(host.sysfs, options.cache),
    Promise.all(
      options.patterns.map(
        async (p) => [p, await host.devfs.glob(p), await globListings(host.devfs, p)] as const,
      ),
    ),
    host.devfs.list('/dev/bus/usb'),
  ]);
  const devices = options.enrich ? await options.enrich(scan.devices) : scan.devices;
  const warnings = scan.hasUsbBus
    ? []
    : [`no USB bus under ${host.sysfs.root}/bus/usb/devices: zero USB devices`];
  return {
    ...scan,
    devices,
    globs: new Map(globs.map(([pattern, matches]) => [pattern, matches])),
    globDirs: [...new Set(globs.flatMap(([, , dirs]) => dirs))],
    busDirs: buses.map((bus) => `/dev/bus/usb/${bus}`),
    warnings,
  };
}
