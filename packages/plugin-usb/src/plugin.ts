import { definePlugin } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { buildAllocation } from './allocate/build-allocation';
import { refreshPayload } from './allocate/refresh-payload';
import { usbConfigSchema } from './config';
import { configuredResources, pathPatterns } from './resources/configured-resources';
import { planResources } from './resources/plan-resources';
import type { UsbStringCache } from './scan/read-usb-device';
import { scanUsbHost } from './scan/scan-usb-host';
import {
  createDescriptorEnricher,
  loadUsbLibrary,
  usbLibraryFor,
  type UsbLibraryLoad,
} from './scan/usb-library';

/** What {@link createUsbPlugin} can replace (tests fake the usb package). */
export interface UsbPluginOptions {
  /** Loads the usb package; default {@link loadUsbLibrary}. */
  readonly loadLibrary?: () => UsbLibraryLoad;
}

/** What lives as long as the process: caches of descriptor strings, the hot-plug subscription. */
interface UsbState {
  readonly strings: UsbStringCache;
  readonly enrich?: ReturnType<typeof createDescriptorEnricher>;
  readonly stopHotplug?: () => void;
  /** The `/dev/bus/usb/BBB` directories the last scan saw (watched, so a new node starts a scan). */
  busDirs: readonly string[];
}

/**
 * `usb-device-plugin`: one resource per configured entry (native `resources` and generic-device-plugin
 * `devices`), rescanned on every change under /dev and sysfs' USB bus, on the usb package's hot-plug events and
 * at least every --poll-interval. An allocated device that is unplugged stays listed Unhealthy until it returns.
 */
export const createUsbPlugin = (options: UsbPluginOptions = {}) =>
  definePlugin({
    name: 'usb',
    binary: 'usb-device-plugin',
    title: 'USB device plugin',
    version: packageJson.version,
    // No default resource: without --config nothing is advertised and discover lists every device as excluded.
    config: { schema: usbConfigSchema },
    // An allocated device that is unplugged stays advertised Unhealthy until the same ID (serial or port) returns.
    health: { keepVanished: 'allocated', vanishedGraceMs: Infinity },
    setup: async (ctx): Promise<UsbState> => {
      const library = await usbLibraryFor({
        setting: ctx.config.usbLibrary,
        sysfsRoot: ctx.host.sysfs.root,
        logger: ctx.logger,
        load: options.loadLibrary ?? loadUsbLibrary,
      });
      return {
        strings: new Map(),
        busDirs: [],
        ...(library !== undefined ? { enrich: createDescriptorEnricher(library) } : {}),
        ...(library !== undefined && ctx.command === 'serve'
          ? { stopHotplug: library.onHotplug(() => ctx.rescan()) }
          : {}),
      };
    },
    scan: {
      watch: ({ state }) => ({
        devfs: ['/dev', '/dev/bus/usb', ...state.busDirs, '/dev/input'],
        sysfs: ['bus/usb/devices'],
      }),
      run: async ({ host, config, state }) => {
        state.busDirs = (await host.devfs.list('/dev/bus/usb')).map((bus) => `/dev/bus/usb/${bus}`);
        const patterns = pathPatterns(configuredResources(config));
        const { strings, enrich } = state;
        return scanUsbHost({ host, patterns, strings, ...(enrich !== undefined ? { enrich } : {}) });
      },
    },
    // Allocate re-reads each USB device, so a replug since the last scan (new devnum) gives the current node.
    resources: (scan, { config, host }) =>
      planResources(config, scan, async ({ resource, devices }) =>
        buildAllocation(
          resource,
          await Promise.all(
            devices.flatMap((d) => (d.payload ? [refreshPayload(host.sysfs, d.payload)] : [])),
          ),
        ),
      ),
    hooks: { stop: ({ state }) => state.stopHotplug?.() },
  });

/** The plugin as its binary and kdp-device-plugins run it: the real usb package. */
export const usbPlugin = createUsbPlugin();
