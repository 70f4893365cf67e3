import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import {
  createDevicePlugin,
  createFsWatchTrigger,
  defineResource,
  runPluginCli,
  serveDevicePlugin,
  type DiscoveredResource,
  type DiscoverResult,
  type Logger,
  type PluginCliOptions,
  type ResourceDeclaration,
  type ScanTrigger,
} from '@kdp/core';
import { createSysfs, type Sysfs } from '@kdp/topology';
import { computeInventory } from './compute-inventory';
import type { DevicePayload } from './device-payload';
import { refreshPayload } from './refresh-payload';
import { toResourceSpecs } from './resource-spec';
import { buildAllocation } from './usb-allocation';
import { usbConfigSchema, type UsbConfig } from './usb-config';
import type { UsbDevice } from './usb-device';
import { createUsbDeviceSources, type UsbDeviceSources } from './usb-device-sources';
import {
  createDescriptorEnricher,
  loadUsbLibrary,
  type UsbLibrary,
  type UsbLibraryLoad,
} from './usb-library';

/** The binary's name, as in the plugin contract. */
export const USB_PLUGIN_BINARY = 'usb-device-plugin';
/** The package version, printed by --version. */
export const USB_PLUGIN_VERSION = '0.1.0';

/** What {@link runUsbPluginCli} accepts besides argv: the CLI's injectable I/O and the usb-package loader. */
export type UsbPluginCliOptions = Partial<
  Pick<
    PluginCliOptions<typeof usbConfigSchema>,
    'stdout' | 'stderr' | 'exit' | 'signals' | 'configDebounceMs'
  >
> & {
  /** Loads the usb package (tests fake it); default `loadUsbLibrary()`. */
  readonly loadLibrary?: () => UsbLibraryLoad;
};

/** Runs `usb-device-plugin` with the plugin contract's commands and flags; resolves with the exit code. */
export function runUsbPluginCli(argv: readonly string[], options: UsbPluginCliOptions = {}): Promise<number> {
  const { loadLibrary = () => loadUsbLibrary(), ...io } = options;
  return runPluginCli({
    name: 'USB device plugin',
    binary: USB_PLUGIN_BINARY,
    version: USB_PLUGIN_VERSION,
    argv,
    configSchema: usbConfigSchema,
    defaults: {},
    ...io,
    discover: async (ctx) => {
      const sysfs = createSysfs({ root: ctx.flags.sysfsRoot });
      const library = libraryFor(ctx.config, ctx.flags.sysfsRoot, ctx.logger, loadLibrary);
      return discoverUsb(sysfs, ctx.flags.devRoot, ctx.config, library);
    },
    serve: async (ctx) => {
      const sysfs = createSysfs({ root: ctx.flags.sysfsRoot });
      const config = ctx.config;
      const library = libraryFor(config, ctx.flags.sysfsRoot, ctx.logger, loadLibrary);
      const triggers: ScanTrigger[] = [
        createFsWatchTrigger(watchPaths(ctx.flags.devRoot, ctx.flags.sysfsRoot)),
      ];
      if (library !== undefined) triggers.push((fire) => library.onHotplug(fire));
      const sources = createUsbDeviceSources({
        sysfs,
        devRoot: ctx.flags.devRoot,
        specs: toResourceSpecs(config),
        intervalMs: config.pollIntervalMs,
        triggers,
        logger: ctx.logger,
        ...(library !== undefined ? { enrich: createDescriptorEnricher(library) } : {}),
      });
      const declare = (name: string): ResourceDeclaration<DevicePayload> =>
        usbResourceDeclaration(name, sources, sysfs);
      let names = toResourceSpecs(config).map((s) => s.name);
      if (names.length === 0) ctx.logger.warn('no resources configured (--config): nothing to advertise');
      const plugin = createDevicePlugin({
        resources: names.map(declare),
        devicePluginDir: ctx.flags.devicePluginDir,
        logger: ctx.logger,
        handleSignals: false,
      });
      const off = ctx.onConfigChange((change) => {
        const specs = toResourceSpecs(change.value);
        const next = specs.map((s) => s.name);
        sources.setSpecs(specs);
        for (const name of names.filter((n) => !next.includes(n))) void plugin.removeResource(name);
        for (const name of next.filter((n) => !names.includes(n))) plugin.addResource(declare(name));
        names = next;
      });
      try {
        await serveDevicePlugin(ctx, plugin);
      } finally {
        off();
      }
    },
  });
}

/** The declaration of one resource: its devices from the shared scanner, Allocate from fresh sysfs reads. */
function usbResourceDeclaration(
  name: string,
  sources: UsbDeviceSources,
  sysfs: Sysfs,
): ResourceDeclaration<DevicePayload> {
  return defineResource<DevicePayload>({
    name,
    source: sources.sourceOf(name),
    allocate: async ({ devices, resource }) => {
      sources.memoryOf(resource).allocated(devices);
      const payloads = devices.map((d) => d.payload).filter((p): p is DevicePayload => p !== undefined);
      return buildAllocation(resource, await Promise.all(payloads.map((p) => refreshPayload(sysfs, p))));
    },
  });
}

/** The directories whose inotify events trigger a rescan (missing ones are skipped by the trigger). */
function watchPaths(devRoot: string, sysfsRoot: string): string[] {
  const busDir = join(devRoot, 'bus/usb');
  let buses: string[] = [];
  try {
    buses = readdirSync(busDir).map((b) => join(busDir, b));
  } catch {
    // No /dev/bus/usb: the poll and /dev itself still cover plugs.
  }
  return [devRoot, busDir, ...buses, join(devRoot, 'input'), join(sysfsRoot, 'bus/usb/devices')];
}

/**
 * The usb package, when configured (`usbLibrary: auto`) and sysfs is the host's own /sys (a fixture root must
 * not be mixed with the host's devices). Unavailable → one log line, and inotify plus the poll do the work.
 */
function libraryFor(
  config: UsbConfig,
  sysfsRoot: string,
  logger: Logger,
  load: () => UsbLibraryLoad,
): UsbLibrary | undefined {
  if (config.usbLibrary === 'off') return undefined;
  let real: string;
  try {
    real = realpathSync(sysfsRoot);
  } catch {
    return undefined;
  }
  if (real !== '/sys') return undefined;
  const loaded = load();
  if (!loaded.ok) {
    logger.info(
      { reason: loaded.reason },
      'usb package unavailable: no hot-plug events or descriptor strings from it',
    );
    return undefined;
  }
  return loaded.library;
}

/** One discovery, as the contract's `discover` result. */
export async function discoverUsb(
  sysfs: Sysfs,
  devRoot: string,
  config: UsbConfig,
  library?: UsbLibrary,
): Promise<DiscoverResult> {
  const inventory = await computeInventory({
    sysfs,
    devRoot,
    specs: toResourceSpecs(config),
    ...(library !== undefined ? { enrich: createDescriptorEnricher(library) } : {}),
  });
  const resources: DiscoveredResource[] = inventory.resources.map((resource) => ({
    resourceName: resource.name,
    devices: resource.devices.map((device) => {
      const payload = device.payload;
      const allocation = payload !== undefined ? buildAllocation(resource.name, [payload]) : {};
      return {
        id: device.id,
        health: device.health,
        numaNodes: [],
        pciAddress: null,
        deviceSpecs: (allocation.devices ?? []).map((d) => ({
          containerPath: d.containerPath,
          hostPath: d.hostPath,
          permissions: d.permissions ?? 'rw',
        })),
        attributes: payload?.kind === 'usb' ? usbAttributes(payload.device) : {},
      };
    }),
  }));
  const warnings = [...inventory.warnings];
  if (!inventory.scan.hasUsbBus)
    warnings.push(`no USB bus under ${sysfs.root}/bus/usb/devices: zero USB devices`);
  return { resources, excluded: inventory.excluded, warnings };
}

/** The facts `discover` prints for a USB device. */
export function usbAttributes(device: UsbDevice): Record<string, string> {
  const out: Record<string, string> = {
    vendor: device.vendorId,
    product: device.productId,
    port: device.portPath,
    busnum: String(device.busnum),
    devnum: String(device.devnum),
    class: device.deviceClass,
    interfaceClasses: device.interfaceClasses.join(','),
  };
  if (device.serial !== undefined) out['serial'] = device.serial;
  if (device.manufacturer !== undefined) out['manufacturer'] = device.manufacturer;
  if (device.product !== undefined) out['productName'] = device.product;
  if (device.bcdDevice !== undefined) out['bcdDevice'] = device.bcdDevice;
  return out;
}
