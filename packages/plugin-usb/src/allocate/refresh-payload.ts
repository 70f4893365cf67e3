import type { Sysfs } from '@kdp/topology';
import type { DevicePayload } from '../resources/device-payload';
import { optional, readUsbDevice } from '../scan/read-usb-device';

/**
 * Re-reads a USB device at Allocate time, so that the nodes handed out are the current ones even if the device
 * was replugged (new devnum) since the last scan. Only a device with the same vendor, product and serial at the
 * same port counts; otherwise the last scan's payload is used.
 */
export async function refreshPayload(sysfs: Sysfs, payload: DevicePayload): Promise<DevicePayload> {
  if (payload.kind !== 'usb') return payload;
  const read = await readUsbDevice(sysfs, payload.device.portPath);
  if (!read.ok) return payload;
  const now = read.device;
  const was = payload.device;
  if (now.vendorId !== was.vendorId || now.productId !== was.productId || now.serial !== was.serial)
    return payload;
  // Descriptor strings the usb package filled are kept over a sysfs re-read that lacks them.
  const strings = { ...optional('manufacturer', was.manufacturer), ...optional('product', was.product) };
  return { ...payload, device: { ...now, ...strings } };
}
