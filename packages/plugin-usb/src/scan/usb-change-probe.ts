import type { ChangeProbe } from '@kdp/core/plugin';
import type { ConfiguredResource } from '../resources/configured-resources';
import { NODE_CLASSES } from './scan-usb-devices';
import type { UsbHostScan } from './scan-usb-host';

/**
 * What a poll tick compares to decide whether a full scan is needed, after `scan`: with USB groups configured,
 * the `bus/usb/devices` listing (devices and their interfaces come and go; sysfs sends no inotify events), the
 * class directories of the node kinds those groups hand out (a driver binding late adds a tty), and the
 * `/dev/bus/usb` bus directories (a replug between two ticks leaves the sysfs listing as it was but changes
 * the device number); with path globs, the `/dev` directories their expansion lists. Nothing is read per
 * device, so a tick costs a handful of directory listings whatever the number of devices.
 */
export function usbChangeProbe(scan: UsbHostScan, resources: readonly ConfiguredResource[]): ChangeProbe {
  const usbGroups = resources.flatMap((r) => r.groups.filter((g) => g.kind === 'usb'));
  const kinds = new Set(usbGroups.flatMap((g) => g.nodes));
  const classes = NODE_CLASSES.filter(([, , kind]) => kinds.has(kind)).map(([cls]) => `class/${cls}`);
  const usb = usbGroups.length > 0;
  return {
    sysfs: { list: usb ? ['bus/usb/devices', ...classes] : [] },
    devfs: { list: [...(usb ? ['/dev/bus/usb', ...scan.busDirs] : []), ...scan.globDirs] },
  };
}
