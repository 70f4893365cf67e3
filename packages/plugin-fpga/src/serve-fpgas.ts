import { join } from 'node:path';
import { createDevicePlugin, createFsWatchTrigger, serveDevicePlugin, type ServeContext } from '@kdp/core';
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
  let running = false;
  let again = false;
  let lastWarnings = '';
  const rescan = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const inventory = buildInventory(
          await scanFpgas({ sysfsRoot: flags.sysfsRoot, devRoot: flags.devRoot }),
          config,
        );
        const warnings = JSON.stringify([inventory.warnings, inventory.excluded]);
        if (warnings !== lastWarnings) {
          lastWarnings = warnings;
          for (const warning of inventory.warnings) logger.warn({ warning }, 'sysfs scan warning');
          for (const entry of inventory.excluded) logger.info(entry, 'device not advertised');
        }
        await resources.apply(inventory);
      } while (again && !ctx.signal.aborted);
    } catch (error) {
      logger.error({ err: String(error) }, 'scan failed; keeping the last device lists');
    } finally {
      running = false;
    }
  };
  const resources = createFpgaResourceSet({
    plugin,
    logger,
    programmer: { prepare: (rule, devices, signal) => programmer.prepare(rule, devices, signal) },
    onProgrammed: () => void rescan(),
  });
  let timer = setInterval(() => void rescan(), config.pollIntervalMs);
  const stopWatch = createFsWatchTrigger([
    flags.devRoot,
    join(flags.devRoot, 'dri'),
    join(flags.sysfsRoot, 'class/fpga_region'),
    join(flags.sysfsRoot, 'class/fpga'),
  ])(() => void rescan());
  const unsubscribe = ctx.onConfigChange((change) => {
    config = change.value;
    programmer = createRegionProgrammer({
      sysfsRoot: flags.sysfsRoot,
      bitstreamDir: config.bitstreamDir,
      logger,
    });
    clearInterval(timer);
    timer = setInterval(() => void rescan(), config.pollIntervalMs);
    void rescan();
  });
  try {
    await rescan();
    await serveDevicePlugin(ctx, plugin);
  } finally {
    clearInterval(timer);
    stopWatch();
    unsubscribe();
  }
}
