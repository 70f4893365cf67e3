import type { Clock, LifecycleLogger } from '@kdp/base';
import type { AnyResourceDeclaration, PluginDevice } from '@kdp/core';
import type { ResourceHost } from '@kdp/core/plugin';
import { draPoolName, toSliceDevice } from './dra-serve-mode-devices';
import type { DeviceHealthReport, HealthSource } from './health-service';
import type { SliceDevice } from './pool-slices';
import { draDevices, withSharedCapacity } from './shared-devices';

/** One resource of a driver: its declaration and its devices now, by DRA device name. */
export interface ServedResource {
  readonly declaration: AnyResourceDeclaration;
  readonly pool: string;
  unsubscribe: () => void;
  devices: ReadonlyMap<string, PluginDevice<unknown>>;
  slice: readonly SliceDevice[];
  /** When its devices' health was last observed: the last device list pushed, or the last unchanged probe. */
  observedAt: number;
}

/** A driver's resources as DRA pools: what its slices publish and its claims and health reports read. */
export interface DriverPools {
  readonly host: ResourceHost;
  /** The served resources by pool name. */
  readonly byPool: ReadonlyMap<string, ServedResource>;
  /** The healthy devices of every pool, as slices publish them. */
  slices(): Map<string, readonly SliceDevice[]>;
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
 * pushed): the healthy devices for the slices, every device for claims, and the health stream's source. A device's
 * health is as of when it was last observed — the last device list the plugin's scan pushed, or the last change
 * probe that found nothing changed (`host.unchanged`) — so a scan that stalls reads as stale to the kubelet.
 */
export function createDriverPools(options: DriverPoolsOptions, changed: () => void): DriverPools {
  const { name, nodeName, logger, clock } = options;
  const resources = new Map<string, ServedResource>();
  const byPool = new Map<string, ServedResource>();
  const healthListeners = new Set<() => void>();
  const notify = (): void => {
    changed();
    for (const listener of [...healthListeners]) listener();
  };
  const setDevices = (resource: ServedResource, list: readonly PluginDevice<unknown>[]): void => {
    const devices = new Map<string, PluginDevice<unknown>>();
    const slice: SliceDevice[] = [];
    for (const device of draDevices(resource.declaration, list)) {
      const sliceDevice = withSharedCapacity(
        resource.declaration,
        device,
        toSliceDevice(resource.declaration.name, device),
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
      // Only healthy devices are offered to the scheduler, as the kubelet allocates only healthy ones.
      if (device.health === 'Healthy') slice.push(sliceDevice);
    }
    resource.devices = devices;
    resource.slice = slice;
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
    slices: () => new Map([...byPool].map(([pool, resource]) => [pool, resource.slice])),
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
