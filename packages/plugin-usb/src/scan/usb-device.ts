/** What kind of device node a USB device exposes. */
export type UsbNodeKind = 'usb' | 'tty' | 'hidraw' | 'video' | 'input';

/** A device node that belongs to a USB device, as a host path (`/dev/...`, never prefixed with `--dev-root`). */
export interface UsbNode {
  readonly kind: UsbNodeKind;
  readonly path: string;
}

/** One USB device (not an interface) as read from `/sys/bus/usb/devices/<port path>`. */
export interface UsbDevice {
  /** The sysfs name, which is the port path: `<bus>-<port>[.<port>…]`, e.g. `1-1.4`. */
  readonly portPath: string;
  /** `bus/usb/devices/<portPath>`, relative to the sysfs root. */
  readonly sysPath: string;
  readonly busnum: number;
  /** Changes on every replug: never part of an ID. */
  readonly devnum: number;
  /** Four lower-case hex digits, e.g. `0403`. */
  readonly vendorId: string;
  readonly productId: string;
  readonly bcdDevice?: string;
  readonly serial?: string;
  readonly manufacturer?: string;
  readonly product?: string;
  /** `bDeviceClass`, two lower-case hex digits (`00` = per interface, `09` = hub). */
  readonly deviceClass: string;
  /** `bInterfaceClass` of every interface, two lower-case hex digits, sorted, no duplicates. */
  readonly interfaceClasses: readonly string[];
  /** `/dev/bus/usb/BBB/DDD` first, then tty, hidraw, video and input nodes found through the interfaces. */
  readonly nodes: readonly UsbNode[];
  /** The host controller's PCI function (`0000:00:14.0`); undefined for a controller that is not PCI. */
  readonly controller?: string;
  /** The host controller's `numa_node`; undefined when it says -1 or is not PCI. */
  readonly numaNode?: number;
  /** The hubs from the root hub down to the device's parent: `['usb1', '1-4']` for `1-4.2`. */
  readonly hubs: readonly string[];
}

/** The `/dev/bus/usb/BBB/DDD` node of a bus and device number (both decimal, zero-padded to three digits). */
export function usbBusNodePath(busnum: number, devnum: number): string {
  return `/dev/bus/usb/${String(busnum).padStart(3, '0')}/${String(devnum).padStart(3, '0')}`;
}

/** Whether a device is a hub (`bDeviceClass` 09). */
export function isHub(device: UsbDevice): boolean {
  return device.deviceClass === '09';
}

/** The hubs above a port path, root hub first: `1-4.2.1` → `['usb1', '1-4', '1-4.2']`. */
export function hubChain(portPath: string): string[] {
  const dash = portPath.indexOf('-');
  const ports = portPath.slice(dash + 1).split('.');
  const hubs = [`usb${portPath.slice(0, dash)}`];
  for (let i = 1; i < ports.length; i++)
    hubs.push(`${portPath.slice(0, dash)}-${ports.slice(0, i).join('.')}`);
  return hubs;
}
