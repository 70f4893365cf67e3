import { realpath } from 'node:fs/promises';
import type { Logger } from '@kdp/core';
import type { UsbDevice } from './usb-device';

/** Descriptor strings read from the device itself. */
export interface DescriptorStrings {
  readonly manufacturer?: string;
  readonly product?: string;
}

/** What this plugin uses of a USB library: hot-plug events and descriptor strings. Tests fake it. */
export interface UsbLibrary {
  /** Calls `listener` on every attach and detach; returns the unsubscribe function. */
  onHotplug(listener: () => void): () => void;
  /** The manufacturer and product strings of the device at bus/devnum, or undefined when it cannot be opened. */
  readStrings(busnum: number, devnum: number): Promise<DescriptorStrings | undefined>;
}

/** The part of node-usb (`usb` 2.x) used here, typed structurally so that nothing else of it leaks in. */
interface NodeUsbDevice {
  busNumber: number;
  deviceAddress: number;
  deviceDescriptor: { iManufacturer: number; iProduct: number };
  open(defaultConfig?: boolean): void;
  close(): void;
  getStringDescriptor(index: number, callback: (error?: unknown, value?: string) => void): void;
}
interface NodeUsbModule {
  getDeviceList(): NodeUsbDevice[];
  usb: {
    on(event: 'attach' | 'detach', listener: () => void): unknown;
    off(event: 'attach' | 'detach', listener: () => void): unknown;
    unrefHotplugEvents?(): void;
  };
}

/** The outcome of {@link loadUsbLibrary}: the library, or why it is not available (logged once by the caller). */
export type UsbLibraryLoad =
  { readonly ok: true; readonly library: UsbLibrary } | { readonly ok: false; readonly reason: string };

/**
 * Loads node-usb (its prebuilt binary, shipped inside the package, links libusb and libudev). Any failure
 * (no binary for the platform, no libudev, libusb_init failing on a host without USB) is returned, never thrown.
 */
export function loadUsbLibrary(load: () => unknown = () => require('usb')): UsbLibraryLoad {
  let mod: NodeUsbModule;
  try {
    mod = load() as NodeUsbModule;
    if (typeof mod?.getDeviceList !== 'function' || typeof mod.usb?.on !== 'function') {
      return { ok: false, reason: 'the usb package does not have the expected API' };
    }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, library: wrapNodeUsb(mod) };
}

/**
 * The usb package when it is wanted (`usbLibrary: auto`) and `--sysfs-root` is the host's own /sys (a fixture or
 * captured tree must not be mixed with the host's devices). Unavailable → one log line; inotify and the poll
 * do the work then.
 */
export async function usbLibraryFor(options: {
  readonly setting: 'auto' | 'off';
  readonly sysfsRoot: string;
  readonly logger: Logger;
  readonly load: () => UsbLibraryLoad;
}): Promise<UsbLibrary | undefined> {
  if (options.setting === 'off') return undefined;
  if ((await realpath(options.sysfsRoot).catch(() => undefined)) !== '/sys') return undefined;
  const loaded = options.load();
  if (loaded.ok) return loaded.library;
  options.logger.info(
    { reason: loaded.reason },
    'usb package unavailable: no hot-plug events or descriptor strings from it',
  );
  return undefined;
}

function wrapNodeUsb(mod: NodeUsbModule): UsbLibrary {
  return {
    onHotplug(listener) {
      const fire = (): void => listener();
      mod.usb.on('attach', fire);
      mod.usb.on('detach', fire);
      // Hot-plug events must not keep the process alive after shutdown.
      mod.usb.unrefHotplugEvents?.();
      return () => {
        mod.usb.off('attach', fire);
        mod.usb.off('detach', fire);
      };
    },
    async readStrings(busnum, devnum) {
      let device: NodeUsbDevice | undefined;
      try {
        device = mod.getDeviceList().find((d) => d.busNumber === busnum && d.deviceAddress === devnum);
        if (device === undefined) return undefined;
        device.open(false);
        const opened = device;
        const read = (index: number): Promise<string | undefined> =>
          index === 0
            ? Promise.resolve(undefined)
            : new Promise((resolve) =>
                opened.getStringDescriptor(index, (error, value) => resolve(error ? undefined : value)),
              );
        const manufacturer = await read(opened.deviceDescriptor.iManufacturer);
        const product = await read(opened.deviceDescriptor.iProduct);
        return {
          ...(manufacturer !== undefined ? { manufacturer } : {}),
          ...(product !== undefined ? { product } : {}),
        };
      } catch {
        return undefined;
      } finally {
        try {
          device?.close();
        } catch {
          // Not open: nothing to close.
        }
      }
    },
  };
}

/**
 * An enricher for {@link computeInventory}: fills manufacturer and product where sysfs has none, from the device's
 * string descriptors (cached per bus/devnum, so a device is opened once per plug). The serial is never taken from
 * here: IDs come from sysfs alone, so they cannot change with the library's availability.
 */
export function createDescriptorEnricher(
  library: UsbLibrary,
): (devices: readonly UsbDevice[]) => Promise<readonly UsbDevice[]> {
  const cache = new Map<string, DescriptorStrings | undefined>();
  // The same device object (unchanged since the last scan) gets the same enriched object back.
  const enriched = new WeakMap<UsbDevice, UsbDevice>();
  return async (devices) => {
    const live = new Set<string>();
    const out = await Promise.all(
      devices.map(async (device) => {
        if (device.manufacturer !== undefined && device.product !== undefined) return device;
        const key = `${device.busnum}/${device.devnum}`;
        live.add(key);
        const known = enriched.get(device);
        if (known !== undefined) return known;
        if (!cache.has(key)) cache.set(key, await library.readStrings(device.busnum, device.devnum));
        const strings = cache.get(key);
        const result: UsbDevice = {
          ...device,
          ...(device.manufacturer === undefined && strings?.manufacturer !== undefined
            ? { manufacturer: strings.manufacturer }
            : {}),
          ...(device.product === undefined && strings?.product !== undefined
            ? { product: strings.product }
            : {}),
        };
        enriched.set(device, result);
        return result;
      }),
    );
    for (const key of cache.keys()) if (!live.has(key)) cache.delete(key);
    return out;
  };
}
