import { join } from 'node:path';
import {
  createDevicePlugin,
  createFsWatchTrigger,
  createPollingSource,
  serveDevicePlugin,
  type ServeContext,
} from '@kdp/core';
import { buildInventory } from './build-inventory';
import type { FpgaConfig } from './fpga-config';
import { createFpgaResourceSet } from './fpga-resource-set';
import { createRegionProgrammer } from './region-programmer';
import { scanFpgas } from './scan-fpgas';

/**
 * The `serve` command: scans, serves one resource per name found, rescans every `pollIntervalMs` and on inotify
 * events in the device and class directories, and programs regions in PreStartContainer. Returns on SIGTERM.
 */
export async function serveFpgas(ctx: ServeContext<FpgaConfig>): Promise<void> {
  const { flags, logger } = ctx;
  const plugin = createDevicePlugin({ handleSignals: false, devicePluginDir: flags.devicePluginDir, logger });
  let config = ctx.config;
  let programmer = createRegionProgrammer({
    sysfsRoot: flags.sysfsRoot,
    bitstreamDir: config.bitstreamDir,
    logger,
  });
  let reported = '';
  let rescanNow: () => void = () => undefined;
  const resources = createFpgaResourceSet({
    plugin,
    logger,
    programmer: { prepare: (rule, devices, signal) => programmer.prepare(rule, devices, signal) },
    onProgrammed: () => rescanNow(),
  });
  /** One scan applied to the resources; logs warnings and exclusions only when they change. */
  const scanAndApply = async (): Promise<void> => {
    const scan = await scanFpgas({ sysfsRoot: flags.sysfsRoot, devRoot: flags.devRoot });
    const inventory = buildInventory(scan, config);
    const report = JSON.stringify([inventory.warnings, inventory.excluded]);
    if (report !== reported) {
      reported = report;
      for (const warning of inventory.warnings) logger.warn({ warning }, 'sysfs scan warning');
      for (const entry of inventory.excluded) logger.info(entry, 'device not advertised');
    }
    await resources.apply(inventory);
  };
  const watchTrigger = createFsWatchTrigger([
    flags.devRoot,
    join(flags.devRoot, 'dri'),
    join(flags.sysfsRoot, 'class/fpga_region'),
    join(flags.sysfsRoot, 'class/fpga'),
  ]);
  /**
   * Core's polling source schedules the scans (at start, every interval, on a trigger, never overlapping); the
   * scan applies the inventory itself, so the source's own list stays empty.
   */
  const startScanning = (): (() => void) => {
    let fire: () => void = () => undefined;
    const source = createPollingSource<never>({
      scan: async () => {
        await scanAndApply();
        return [];
      },
      intervalMs: config.pollIntervalMs,
      triggers: [watchTrigger, (f) => ((fire = f), () => (fire = () => undefined))],
      onError: (error) => logger.error({ err: String(error) }, 'scan failed; keeping the last device lists'),
    });
    rescanNow = () => fire();
    return source.subscribe(() => undefined);
  };
  await scanAndApply().catch((error: unknown) => logger.error({ err: String(error) }, 'first scan failed'));
  let stopScanning = startScanning();
  const unsubscribe = ctx.onConfigChange((change) => {
    config = change.value;
    programmer = createRegionProgrammer({
      sysfsRoot: flags.sysfsRoot,
      bitstreamDir: config.bitstreamDir,
      logger,
    });
    stopScanning();
    stopScanning = startScanning();
  });
  try {
    await serveDevicePlugin(ctx, plugin);
  } finally {
    stopScanning();
    unsubscribe();
  }
}
