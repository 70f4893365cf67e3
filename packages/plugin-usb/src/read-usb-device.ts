import type { Sysfs } from '@kdp/topology';
import { findInterfaceNodes } from './find-interface-nodes';
import { usbBusNodePath, type UsbDevice } from './usb-device';

/** A device read from sysfs, or why it could not be. */
export type UsbDeviceRead =
  | { readonly ok: true; readonly device: UsbDevice }
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

/**
 * Reads one USB device by its port path (`1-1.4`). Missing or malformed identity attributes (idVendor,
 * idProduct, busnum, devnum) make the device unusable, with the reason; optional strings are simply absent.
 */
export async function readUsbDevice(sysfs: Sysfs, portPath: string): Promise<UsbDeviceRead> {
  const sysPath = `bus/usb/devices/${portPath}`;
  const dir = await sysfs.resolve(sysPath);
  if (dir === undefined) return { ok: false, path: sysPath, reason: 'device directory cannot be resolved' };
  const attr = (name: string): Promise<string | undefined> => sysfs.read(`${dir}/${name}`);
  const [vendor, product, bcd, devClass, busnum, devnum, serial, manufacturer, productName, speed, info] =
    await Promise.all([
      attr('idVendor'),
      attr('idProduct'),
      attr('bcdDevice'),
      attr('bDeviceClass'),
      attr('busnum'),
      attr('devnum'),
      attr('serial'),
      attr('manufacturer'),
      attr('product'),
      attr('speed'),
      findInterfaceNodes(sysfs, dir, portPath),
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
    ...optional('bcdDevice', bcd !== undefined && HEX4.test(bcd) ? bcd.toLowerCase() : undefined),
    ...optional('serial', text(serial)?.trim() || undefined),
    ...optional('manufacturer', text(manufacturer)),
    ...optional('product', text(productName)),
    ...optional('speed', text(speed)),
  };
  return { ok: true, device };
}

/** `{ [key]: value }` when the value is defined, else `{}` (for exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
