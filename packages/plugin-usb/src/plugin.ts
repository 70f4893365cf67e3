import { definePlugin } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { buildAllocation } from './allocate/build-allocation';
import { refreshPayload } from './allocate/refresh-payload';
import { genericDevicePluginCompat } from './compat/generic-device-plugin';
import { usbConfigSchema } from './config';
import { usbFeatures } from './features/usb-features';
import { usbHealthPolicy } from './health/usb-health-policy';
import { configuredResources, pathPatterns } from './resources/configured-resources';
import { planResources } from './resources/plan-resources';
import { createUsbScanCache, type UsbScanCache } from './scan/scan-usb-devices';
import { scanUsbHost, type UsbHostScan } from './scan/scan-usb-host';
import { usbChangeProbe } from './scan/usb-change-probe';
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

/** What lives as long as the process: the device reads of the last scan, the hot-plug subscription. */
interface UsbState {
  readonly cache: UsbScanCache;
  readonly enrich?: ReturnType<typeof createDescriptorEnricher>;
  readonly stopHotplug?: () => void;
  /** The `/dev/bus/usb/BBB` directories the last scan saw (watched, so a new node starts a scan). */
  busDirs: readonly string[];
}

/**
 * `usb-device-plugin`: one resource per configured entry (native `resources` and generic-device-plugin
 * `devices`), rescanned on every change of the watched /dev directories, on the usb package's hot-plug events,
 * and when the change probe (sysfs' USB bus and node classes, /dev/bus/usb, the globs' directories; every
 * --poll-interval, default 500ms) differs. A scan reads again only the devices that changed. An allocated device
 * that is unplugged stays listed Unhealthy until it returns. Devices carry their controller's NUMA node, and
 * preferred allocation groups them by NUMA node, controller and hub.
 */
export function createUsbPlugin(options: UsbPluginOptions = {}) {
  return definePlugin({
    name: 'usb',
    binary: 'usb-device-plugin',
    title: 'USB device plugin',
    version: packageJson.version,
    // No default resource: without --config nothing is advertised and discover lists every device as excluded.
    config: { schema: usbConfigSchema },
    compat: [genericDevicePluginCompat],
    health: usbHealthPolicy,
    setup: async (ctx): Promise<UsbState> => {
      const library = await usbLibraryFor({
        setting: ctx.config.usbLibrary,
        sysfsRoot: ctx.host.sysfs.root,
        logger: ctx.logger,
        load: options.loadLibrary ?? loadUsbLibrary,
      });
      return {
        cache: createUsbScanCache(),
        busDirs: [],
        ...(library !== undefined ? { enrich: createDescriptorEnricher(library) } : {}),
        ...(library !== undefined && ctx.command === 'serve'
          ? { stopHotplug: library.onHotplug(() => ctx.rescan()) }
          : {}),
      };
    },
    scan: {
      // Device nodes come and go in these (inotify); sysfs is left to the probe, as it sends no inotify events.
      watch: ({ state }) => ({ devfs: ['/dev', '/dev/bus/usb', ...state.busDirs, '/dev/input'] }),
      interval: '500ms',
      probe: (scan: UsbHostScan, { config }) => usbChangeProbe(scan, configuredResources(config)),
      run: async ({ host, config, state }) => {
        const patterns = pathPatterns(configuredResources(config));
        const { cache, enrich } = state;
        const scan = await scanUsbHost({
          host,
          patterns,
          cache,
          ...(enrich !== undefined ? { enrich } : {}),
        });
        state.busDirs = scan.busDirs;
        return scan;
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
          { envs: config.anchor === undefined },
        ),
      ),
    features: (set) => usbFeatures(set),
    hooks: { stop: ({ state }) => state.stopHotplug?.() },
  });
}

/** The plugin as its binary and kdp-device-plugins run it: the real usb package. */
export const usbPlugin = createUsbPlugin();
