import {
  createPollingSource,
  createPushSource,
  type DeviceSource,
  type LifecycleLogger,
  type PushSource,
  type ScanTrigger,
} from '@kdp/core';
import type { Sysfs } from '@kdp/topology';
import { computeInventory, type Inventory } from './compute-inventory';
import type { DevicePayload } from './device-payload';
import { createHealthMemory, type HealthMemory } from './health-memory';
import type { UsbStringCache } from './read-usb-device';
import type { ResourceSpec } from './resource-spec';
import type { UsbDevice } from './usb-device';

/** Options of {@link createUsbDeviceSources}. */
export interface UsbDeviceSourcesOptions {
  readonly sysfs: Sysfs;
  readonly devRoot: string;
  readonly specs: readonly ResourceSpec[];
  /** The fallback poll (ms). */
  readonly intervalMs: number;
  /** Event-driven rescans (inotify on /dev, the usb package's hot-plug events). */
  readonly triggers: readonly ScanTrigger[];
  readonly enrich?: (devices: readonly UsbDevice[]) => Promise<readonly UsbDevice[]>;
  readonly logger: LifecycleLogger;
}

/** One scanner shared by every resource: each resource gets its own source and health memory. */
export interface UsbDeviceSources {
  /** The source of one resource (created on first use). */
  sourceOf(resource: string): DeviceSource<DevicePayload>;
  memoryOf(resource: string): HealthMemory;
  /** Replaces the resource specs (configuration reload); the next scan uses them. */
  setSpecs(specs: readonly ResourceSpec[]): void;
  /** Asks for a scan now. */
  rescan(): void;
  /** The last inventory, if a scan ran. */
  latest(): Inventory | undefined;
}

/**
 * Scans at start, on every trigger and every `intervalMs`, and publishes each resource's full list, with
 * allocated devices that were unplugged kept as Unhealthy until they return.
 */
export function createUsbDeviceSources(options: UsbDeviceSourcesOptions): UsbDeviceSources {
  let specs = options.specs;
  const pushes = new Map<string, PushSource<DevicePayload>>();
  const memories = new Map<string, HealthMemory>();
  let last: Inventory | undefined;
  const stringCache: UsbStringCache = new Map();
  let lastWarnings = '';
  let announcedNoBus = false;
  let fireNow: (() => void) | undefined;
  const memoryOf = (name: string): HealthMemory => {
    let memory = memories.get(name);
    if (memory === undefined) memories.set(name, (memory = createHealthMemory()));
    return memory;
  };
  const pushOf = (name: string): PushSource<DevicePayload> => {
    let push = pushes.get(name);
    if (push === undefined) pushes.set(name, (push = createPushSource<DevicePayload>()));
    return push;
  };
  const nowTrigger: ScanTrigger = (fire) => {
    fireNow = fire;
    return () => (fireNow = undefined);
  };
  const inventory = createPollingSource<never>({
    intervalMs: options.intervalMs,
    triggers: [...options.triggers, nowTrigger],
    onError: (error) => options.logger.warn({ err: String(error) }, 'USB scan failed; keeping the last list'),
    scan: async () => {
      const found = await computeInventory({
        sysfs: options.sysfs,
        devRoot: options.devRoot,
        specs,
        stringCache,
        ...(options.enrich ? { enrich: options.enrich } : {}),
      });
      last = found;
      if (!found.scan.hasUsbBus && !announcedNoBus) {
        announcedNoBus = true;
        options.logger.info(
          { sysfs: options.sysfs.root },
          'no USB bus in sysfs (bus/usb/devices): zero USB devices',
        );
      }
      const warnings = found.warnings.join('\n');
      if (warnings !== lastWarnings && warnings !== '') {
        options.logger.warn({ warnings: found.warnings }, 'USB scan warnings');
      }
      lastWarnings = warnings;
      for (const resource of found.resources) {
        pushOf(resource.name).set(memoryOf(resource.name).apply(resource.devices));
      }
      return [];
    },
  });
  let subscribers = 0;
  let stopInventory: (() => void) | undefined;
  return {
    sourceOf(name) {
      const push = pushOf(name);
      return {
        subscribe(listener) {
          const off = push.subscribe(listener);
          subscribers += 1;
          stopInventory ??= inventory.subscribe(() => undefined);
          return () => {
            off();
            subscribers -= 1;
            if (subscribers === 0) {
              stopInventory?.();
              stopInventory = undefined;
            }
          };
        },
      };
    },
    memoryOf,
    setSpecs(next) {
      specs = next;
      fireNow?.();
    },
    rescan: () => fireNow?.(),
    latest: () => last,
  };
}
