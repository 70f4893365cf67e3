import { nearestPciFunction, type Sysfs } from '@kdp/topology';
import { findInterfaceNodes } from './find-interface-nodes';
import { hubChain, usbBusNodePath, type UsbDevice } from './usb-device';

/** A device read from sysfs (with its real directory, relative to the root), or why not. */
export type UsbDeviceRead =
  | { readonly ok: true; readonly device: UsbDevice; readonly dir: string }
  | { readonly ok: false; readonly path: string; readonly reason: string };

const HEX4 = /^[0-9a-fA-F]{4}$/;
const HEX2 = /^[0-9a-fA-F]{2}$/;
const DECIMAL = /^\d{1,3}$/;

/** Whether a `/sys/bus/usb/devices` entry names a device behind a root port (`1-1`, `3-4.2.1`), not an interface. */
export function isUsbDeviceName(name: string): boolean {
  return /^\d{1,3}-\d{1,3}(\.\d{1,3}){0,6}$/.test(name);
}

/** Whether a `/sys/bus/usb/devices` entry names a root hub (`usb1`). */
export function isRootHubName(name: string): boolean {
  return /^usb\d{1,3}$/.test(name);
}

/** A printable attribute string: control characters dropped, at most 256 characters; undefined when empty. */
function text(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 256);
  return clean === '' ? undefined : clean;
}

/** Descriptor strings of one plug (a port path with its bus and device numbers), which cannot change until replug. */
export type UsbStringCache = Map<
  string,
  readonly [string | undefined, string | undefined, string | undefined]
>;

/** What {@link readUsbDevice} may keep between reads: descriptor strings per plug, NUMA nodes per controller. */
export interface UsbReadCaches {
  readonly strings?: UsbStringCache;
  /** The `numa_node` of each host controller directory (it never changes while the controller is there). */
  readonly numa?: Map<string, number | undefined>;
}

/** Identity from `uevent`: `PRODUCT=403/6001/600`, `TYPE=0/0/0`, `BUSNUM=001`, `DEVNUM=007`. */
interface UeventIdentity {
  readonly vendor?: string;
  readonly product?: string;
  readonly bcd?: string;
  readonly deviceClass?: string;
  readonly busnum?: string;
  readonly devnum?: string;
}

function parseUevent(text: string | undefined): UeventIdentity {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1).trim();
  }
  const [vendor, product, bcd] = (out['PRODUCT'] ?? '').split('/');
  const type = (out['TYPE'] ?? '').split('/')[0];
  const hex = (v: string | undefined, width: number): string | undefined =>
    v !== undefined && /^[0-9a-fA-F]{1,4}$/.test(v) ? v.padStart(width, '0') : undefined;
  const dec = (v: string | undefined): string | undefined =>
    v !== undefined && /^\d{1,3}$/.test(v) ? String(Number(v)) : undefined;
  const cls =
    type !== undefined && /^\d{1,3}$/.test(type) && Number(type) < 256
      ? Number(type).toString(16).padStart(2, '0')
      : undefined;
  return {
    ...optional('vendor', hex(vendor, 4)),
    ...optional('product', hex(product, 4)),
    ...optional('bcd', hex(bcd, 4)),
    ...optional('deviceClass', cls),
    ...optional('busnum', dec(out['BUSNUM'])),
    ...optional('devnum', dec(out['DEVNUM'])),
  };
}

/**
 * Reads one USB device by its port path (`1-1.4`): identity from `uevent` in one read (falling back to
 * idVendor, idProduct, bcdDevice, bDeviceClass, busnum and devnum when it lacks a field), descriptor strings
 * (from `caches.strings` when this plug was read before), interfaces and their nodes, and the host controller
 * (the nearest PCI function above the device) with its NUMA node. Missing or malformed identity makes the
 * device unusable, with the reason; optional strings are simply absent.
 */
export async function readUsbDevice(
  sysfs: Sysfs,
  portPath: string,
  caches: UsbReadCaches = {},
): Promise<UsbDeviceRead> {
  const sysPath = `bus/usb/devices/${portPath}`;
  const dir = await sysfs.resolve(sysPath);
  if (dir === undefined) return { ok: false, path: sysPath, reason: 'device directory cannot be resolved' };
  const attr = (name: string): Promise<string | undefined> => sysfs.read(`${dir}/${name}`);
  const [uevent, info, controller] = await Promise.all([
    attr('uevent').then(parseUevent),
    findInterfaceNodes(sysfs, dir, portPath),
    readController(sysfs, dir, caches.numa),
  ]);
  const fallback = (value: string | undefined, name: string): Promise<string | undefined> =>
    value !== undefined ? Promise.resolve(value) : attr(name);
  const [vendor, product, bcd, devClass, busnum, devnum] = await Promise.all([
    fallback(uevent.vendor, 'idVendor'),
    fallback(uevent.product, 'idProduct'),
    fallback(uevent.bcd, 'bcdDevice'),
    fallback(uevent.deviceClass, 'bDeviceClass'),
    fallback(uevent.busnum, 'busnum'),
    fallback(uevent.devnum, 'devnum'),
  ]);
  const bad = (field: string, value: string | undefined): UsbDeviceRead => ({
    ok: false,
    path: sysPath,
    reason:
      value === undefined
        ? `${field} is missing`
        : `${field} ${JSON.stringify(value.slice(0, 40))} is malformed`,
  });
  if (vendor === undefined || !HEX4.test(vendor)) return bad('idVendor', vendor);
  if (product === undefined || !HEX4.test(product)) return bad('idProduct', product);
  if (busnum === undefined || !DECIMAL.test(busnum) || Number(busnum) < 1) return bad('busnum', busnum);
  if (devnum === undefined || !DECIMAL.test(devnum) || Number(devnum) < 1) return bad('devnum', devnum);
  const bus = Number(busnum);
  const dev = Number(devnum);
  const key = `${portPath}@${bus}/${dev}`;
  const cache = caches.strings;
  let strings = cache?.get(key);
  if (strings === undefined) {
    // Only files the directory listing shows are read: most devices lack one string or another.
    const has = new Set(info.entries);
    const maybe = (name: string): Promise<string | undefined> =>
      has.has(name) ? attr(name) : Promise.resolve(undefined);
    strings = await Promise.all([maybe('serial'), maybe('manufacturer'), maybe('product')]);
    cache?.set(key, strings);
  }
  const [serial, manufacturer, productName] = strings;
  const device: UsbDevice = {
    portPath,
    sysPath,
    busnum: bus,
    devnum: dev,
    vendorId: vendor.toLowerCase(),
    productId: product.toLowerCase(),
    deviceClass: devClass !== undefined && HEX2.test(devClass) ? devClass.toLowerCase() : '00',
    interfaceClasses: info.interfaceClasses,
    nodes: [{ kind: 'usb', path: usbBusNodePath(bus, dev) }, ...info.nodes],
    hubs: hubChain(portPath),
    ...optional('controller', controller?.address),
    ...optional('numaNode', controller?.numaNode),
    ...optional('bcdDevice', bcd !== undefined && HEX4.test(bcd) ? bcd.toLowerCase() : undefined),
    ...optional('serial', text(serial)?.trim() || undefined),
    ...optional('manufacturer', text(manufacturer)),
    ...optional('product', text(productName)),
  };
  return { ok: true, device, dir };
}

/** The host controller of a device directory: its PCI address and `numa_node` (-1 or unreadable: undefined). */
async function readController(
  sysfs: Sysfs,
  dir: string,
  numa: Map<string, number | undefined> | undefined,
): Promise<{ readonly address: string; readonly numaNode?: number } | undefined> {
  const pci = nearestPciFunction(dir);
  if (pci === undefined) return undefined;
  let node = numa?.get(pci.path);
  if (node === undefined && !numa?.has(pci.path)) {
    const value = await sysfs.readInt(`${pci.path}/numa_node`);
    node = value !== undefined && value >= 0 ? value : undefined;
    numa?.set(pci.path, node);
  }
  return { address: pci.address, ...optional('numaNode', node) };
}

/** `{ [key]: value }` when the value is defined, else `{}` (for exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
