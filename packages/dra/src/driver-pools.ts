import type { Clock, LifecycleLogger } from '@kdp/base';
import type { AnyResourceDeclaration, PluginDevice } from '@kdp/core';
import type { ResourceHost } from '@kdp/core/plugin';
import { draPool, toPoolSliceDevice } from './dra-pool';
import { draPoolName } from './dra-serve-mode-devices';
import type { DeviceHealthReport, HealthSource } from './health-service';
import { healthTaint } from './health-taint';
import type { SliceCounterSet, SliceDevice, SlicePoolEntry } from './pool-slices';
import { createTaintTimes } from './taint-times';
import { draDevices, withSharedCapacity } from './shared-devices';

/** One resource of a driver: its declaration and its devices now, by DRA device name. */
export interface ServedResource {
  readonly declaration: AnyResourceDeclaration;
  readonly pool: string;
  unsubscribe: () => void;
  devices: ReadonlyMap<string, PluginDevice<unknown>>;
  slice: readonly SliceDevice[];
  /** The pool's counter sets (the resource's `dra.pool` hook), published whatever its devices' health. */
  sharedCounters: readonly SliceCounterSet[];
  /** When its devices' health was last observed: the last device list pushed, or the last unchanged probe. */
  observedAt: number;
}

/** A driver's resources as DRA pools: what its slices publish and its claims and health reports read. */
export interface DriverPools {
  readonly host: ResourceHost;
  /** The served resources by pool name. */
  readonly byPool: ReadonlyMap<string, ServedResource>;
  /** The devices of every pool (an Unhealthy one with its `kdp.dev/unhealthy` taint) and its counter sets, if any. */
  slices(): Map<string, SlicePoolEntry>;
  readonly health: HealthSource;
  /** Stops following the resources' device lists. */
  close(): void;
}

/** Options of {@link createDriverPools}. */
export interface DriverPoolsOptions {
  /** The driver name (logs). */
  readonly name: string;
  readonly nodeName: string;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
}

/**
 * The resources of one driver as pools `<node>/<resource>` (`changed` is called whenever a pool's devices are
 * pushed): every device for the slices, an Unhealthy one tainted `kdp.dev/unhealthy` (`healthTaint`, its
 * `timeAdded` kept while the taint is unchanged), every device for claims, and the health stream's source. A device's
 * health is as of when it was last observed — the last device list the plugin's scan pushed, or the last change
 * probe that found nothing changed (`host.unchanged`) — so a scan that stalls reads as stale to the kubelet.
 */
export function createDriverPools(options: DriverPoolsOptions, changed: () => void): DriverPools {
  const { name, nodeName, logger, clock } = options;
  const resources = new Map<string, ServedResource>();
  const byPool = new Map<string, ServedResource>();
  const healthListeners = new Set<() => void>();
  const taintTimes = createTaintTimes(clock);
  const notify = (): void => {
    changed();
    for (const listener of [...healthListeners]) listener();
  };
  const setDevices = (resource: ServedResource, list: readonly PluginDevice<unknown>[]): void => {
    const devices = new Map<string, PluginDevice<unknown>>();
    const slice: SliceDevice[] = [];
    const pool = draPool(resource.declaration, draDevices(resource.declaration, list), logger);
    for (const device of pool.devices) {
      const sliceDevice = withSharedCapacity(
        resource.declaration,
        device,
        toPoolSliceDevice(resource.declaration.name, device),
      );
      const other = devices.get(sliceDevice.name);
      if (other !== undefined) {
        logger.error(
          {
            resource: resource.declaration.name,
            device: device.id,
            clashesWith: other.id,
            name: sliceDevice.name,
          },
          'two devices have one DRA device name; the second is not published',
        );
        continue;
      }
      devices.set(sliceDevice.name, device);
      // An Unhealthy device stays in its slice, tainted: the scheduler allocates it only to claims tolerating that.
      const taint = healthTaint(resource.declaration, device);
      slice.push(taint === undefined ? sliceDevice : { ...sliceDevice, taints: [taint] });
    }
    resource.devices = devices;
    resource.slice = taintTimes.stamp(resource.pool, slice);
    resource.sharedCounters = pool.sharedCounters ?? [];
    resource.observedAt = clock.now();
    notify();
  };
  const host: ResourceHost = {
    addResource(declaration) {
      if (resources.has(declaration.name)) throw new Error(`resource ${declaration.name} is already served`);
      const pool = draPoolName(nodeName, declaration.name);
      if (byPool.has(pool))
        throw new Error(`resource ${declaration.name}: pool ${pool} is taken by another resource`);
      const entry: ServedResource = {
        declaration: declaration as AnyResourceDeclaration,
        pool,
        devices: new Map(),
        slice: [],
        sharedCounters: [],
        unsubscribe: () => undefined,
        observedAt: clock.now(),
      };
      resources.set(declaration.name, entry);
      byPool.set(pool, entry);
      entry.unsubscribe = declaration.source.subscribe((list) => setDevices(entry, list));
      logger.info({ resource: declaration.name, driver: name, pool }, 'resource served through DRA');
    },
    async removeResource(resourceName) {
      const entry = resources.get(resourceName);
      if (entry === undefined) throw new Error(`resource ${resourceName} is not served by this driver`);
      entry.unsubscribe();
      resources.delete(resourceName);
      byPool.delete(entry.pool);
      taintTimes.forget(entry.pool);
      notify();
    },
    unchanged() {
      const now = clock.now();
      for (const entry of resources.values()) entry.observedAt = now;
    },
  };
  return {
    host,
    byPool,
    slices: () =>
      new Map(
        [...byPool].map(([pool, resource]): [string, SlicePoolEntry] => [
          pool,
          resource.sharedCounters.length > 0
            ? { devices: resource.slice, sharedCounters: resource.sharedCounters }
            : resource.slice,
        ]),
      ),
    health: {
      current: () =>
        [...byPool].flatMap(([pool, entry]) =>
          [...entry.devices].map(([deviceName, device]): DeviceHealthReport => ({
            poolName: pool,
            deviceName,
            health: device.health === 'Healthy' ? 'Healthy' : 'Unhealthy',
            observedAt: entry.observedAt,
            ...(device.problem !== undefined ? { message: device.problem } : {}),
          })),
        ),
      onChange(listener) {
        healthListeners.add(listener);
        return () => healthListeners.delete(listener);
      },
    },
    close() {
      for (const entry of resources.values()) entry.unsubscribe();
    },
  };
}
