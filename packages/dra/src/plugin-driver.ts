import type { Clock, Logger } from '@kdp/base';
import { createKubeClient } from '@kdp/core';
import type { AnyResourceDeclaration, ContainerAllocation, KubeApiAccess, PluginDevice } from '@kdp/core';
import type { ResourceHost } from '@kdp/core/plugin';
import type { PreparedDevice, PrepareInput, PrepareOutput } from './claim-preparer';
import { createKubeClaimReader } from './claim-reader';
import { createDraPlugin, type DraPlugin, type DraPluginEvent } from './dra-plugin';
import { deviceEdits, draPoolName, envEdits, toSliceDevice } from './dra-serve-mode-devices';
import type { DeviceHealthReport, HealthSource } from './health-service';
import { createResourceApiDiscovery } from './resource-api-discovery';
import type { SliceDevice } from './pool-slices';
import { createSlicePublisher, type SlicePublisher, type SlicePublisherEvent } from './slice-publisher';

/** Something that happened to one plugin's driver in DRA mode (tests and logs). */
export type DraServeModeEvent =
  | ({ readonly driver: string; readonly source: 'plugin' } & DraPluginEvent)
  | ({ readonly driver: string; readonly source: 'slices' } & SlicePublisherEvent);

/** One plugin served as one DRA driver. */
export interface PluginDriver {
  readonly name: string;
  /** Where the plugin's resources go. */
  readonly host: ResourceHost;
  /** Publishes the slices and registers the kubelet plugin. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether the kubelet accepted the registration. */
  registered(): boolean;
}

/** Options of {@link createPluginDriver}. */
export interface PluginDriverOptions {
  /** The driver name (`gpu.kdp.dev`). */
  readonly name: string;
  readonly nodeName: string;
  readonly access: KubeApiAccess;
  readonly pluginsRegistryDir: string;
  readonly draPluginsDir: string;
  readonly cdiDir: string;
  /** Where procfs is read for the node's boot ID. */
  readonly procRoot: string;
  /** The pod's UID (`$POD_UID`), for the kubelet plugin's checkpoint. */
  readonly podUid: string | undefined;
  /** How long device changes are collected before the slices are written. */
  readonly sliceDebounceMs: number | undefined;
  readonly healthCheckTimeoutSeconds: number | undefined;
  readonly onEvent: ((event: DraServeModeEvent) => void) | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborts when the process shuts down. */
  readonly signal: AbortSignal;
}

/** One resource of a driver: its declaration and its devices now, by DRA device name. */
interface ServedResource {
  readonly declaration: AnyResourceDeclaration;
  readonly pool: string;
  unsubscribe: () => void;
  devices: ReadonlyMap<string, PluginDevice<unknown>>;
  slice: readonly SliceDevice[];
}

/** A driver's resources as DRA pools: what its slices publish and its claims and health reports read. */
interface DriverPools {
  readonly host: ResourceHost;
  /** The served resources by pool name. */
  readonly byPool: ReadonlyMap<string, ServedResource>;
  /** The healthy devices of every pool, as slices publish them. */
  slices(): Map<string, readonly SliceDevice[]>;
  readonly health: HealthSource;
  /** Stops following the resources' device lists. */
  close(): void;
}

/**
 * Each plugin of the process as the DRA driver `name`: a pool `<node>/<resource>` of ResourceSlices per resource
 * (healthy devices only), claims prepared by the resource's own `allocate`, and the devices' health streamed.
 */
export function createPluginDriver(options: PluginDriverOptions): PluginDriver {
  const { name, nodeName, access, logger } = options;
  let publisher: SlicePublisher | undefined;
  let plugin: DraPlugin | undefined;
  let started = false;
  const pools = createDriverPools(options, () => {
    if (started) publisher?.update(pools.slices());
  });
  const emit = options.onEvent ?? (() => undefined);
  return {
    name,
    host: pools.host,
    async start() {
      // One resource.k8s.io version for slices and claims, logged when the publisher first lists.
      const discovery = createResourceApiDiscovery({
        client: createKubeClient({ access }),
        purpose: `DRA driver ${name}`,
        logger,
      });
      publisher = createSlicePublisher({
        access,
        discovery,
        driverName: name,
        nodeName,
        pools: pools.slices(),
        clock: options.clock,
        ...(options.sliceDebounceMs !== undefined ? { debounceMs: options.sliceDebounceMs } : {}),
        onEvent: (event) => {
          emit({ driver: name, source: 'slices', ...event });
          logSliceEvent(logger, name, event);
        },
      });
      plugin = createDraPlugin({
        driverName: name,
        nodeName,
        driver: { prepare: (input) => prepareClaim(input, pools.byPool, name, options.signal, logger) },
        claims: createKubeClaimReader({ access, discovery }),
        pluginsRegistryDir: options.pluginsRegistryDir,
        draPluginsDir: options.draPluginsDir,
        podUid: options.podUid,
        cdi: { dir: options.cdiDir },
        procRoot: options.procRoot,
        isLocalPool: (pool) => pools.byPool.has(pool) || pool.startsWith(`${nodeName}/`),
        health: pools.health,
        healthCheckTimeoutSeconds: options.healthCheckTimeoutSeconds,
        clock: options.clock,
        logger,
        onEvent: (event) => {
          emit({ driver: name, source: 'plugin', ...event });
          logPluginEvent(logger, name, event);
        },
      });
      started = true;
      publisher.start();
      await plugin.start();
    },
    async stop() {
      started = false;
      await plugin?.stop();
      await publisher?.stop();
      pools.close();
    },
    registered: () => plugin?.registrationStatus()?.registered === true,
  };
}

/** The resources of one driver as pools; `changed` is called whenever a pool's devices change. */
function createDriverPools(options: PluginDriverOptions, changed: () => void): DriverPools {
  const { name, nodeName, logger } = options;
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
    for (const device of list) {
      const sliceDevice = toSliceDevice(resource.declaration.name, device);
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

/** A claim's devices on this node, grouped by resource; throws for a device that is not here or not healthy. */
function claimedDevices(
  results: PrepareInput['results'],
  byPool: ReadonlyMap<string, ServedResource>,
  driver: string,
): Map<ServedResource, { result: PrepareInput['results'][number]; device: PluginDevice<unknown> }[]> {
  const groups = new Map<
    ServedResource,
    { result: PrepareInput['results'][number]; device: PluginDevice<unknown> }[]
  >();
  for (const result of results) {
    const entry = byPool.get(result.pool);
    if (entry === undefined) throw new Error(`pool ${result.pool} is not served by ${driver} on this node`);
    const device = entry.devices.get(result.device);
    if (device === undefined) throw new Error(`device ${result.pool}/${result.device} is not on this node`);
    if (device.health !== 'Healthy')
      throw new Error(
        `device ${result.pool}/${result.device} (${device.id}) is Unhealthy${device.problem ? `: ${device.problem}` : ''}`,
      );
    groups.set(entry, [...(groups.get(entry) ?? []), { result, device }]);
  }
  return groups;
}

/** What a resource's `allocate` hook answers for `devices` (nothing without one). */
async function allocate(
  entry: ServedResource,
  devices: readonly PluginDevice<unknown>[],
  signal: AbortSignal,
): Promise<ContainerAllocation> {
  const allocateHook = entry.declaration.allocate;
  if (allocateHook === undefined) return {};
  return allocateHook({ resource: entry.declaration.name, devices, containerIndex: 0, signal });
}

/** One claim: each device's own allocation (nodes, mounts, CDI names) and the claim's environment. */
async function prepareClaim(
  { results }: PrepareInput,
  byPool: ReadonlyMap<string, ServedResource>,
  driver: string,
  signal: AbortSignal,
  logger: Logger,
): Promise<PrepareOutput> {
  const prepared: PreparedDevice[] = [];
  const env: Record<string, string> = {};
  for (const [entry, items] of claimedDevices(results, byPool, driver)) {
    // The environment names every device of the claim at once (NVIDIA_VISIBLE_DEVICES=a,b), as one Allocate does.
    const all = await allocate(
      entry,
      items.map((item) => item.device),
      signal,
    );
    Object.assign(env, all.envs ?? {});
    // DRA has no PreStartContainer: what a resource does there (an FPGA's programming) is done in prepare.
    await entry.declaration.preStartContainer?.({
      resource: entry.declaration.name,
      devices: items.map((item) => item.device),
      unknownIds: [],
      signal,
    });
    for (const { result, device } of items) {
      const own = items.length === 1 ? all : await allocate(entry, [device], signal);
      if (Object.keys(own.annotations ?? {}).length > 0)
        logger.debug(
          { device: device.id },
          'allocation annotations have no place in CDI edits; not passed on',
        );
      prepared.push({
        requestNames: [result.request],
        poolName: result.pool,
        deviceName: result.device,
        containerEdits: deviceEdits(own),
        ...((own.cdiDevices?.length ?? 0) > 0 ? { cdiDeviceIds: [...(own.cdiDevices ?? [])] } : {}),
      });
    }
  }
  const claimEnv = envEdits(env);
  return { devices: prepared, ...(claimEnv.length > 0 ? { containerEdits: { env: claimEnv } } : {}) };
}

function logPluginEvent(logger: Logger, driver: string, event: DraPluginEvent): void {
  if (event.type === 'registration')
    logger[event.registered ? 'info' : 'error'](
      { driver, ...(event.error !== '' ? { problem: event.error } : {}) },
      event.registered ? 'registered with the kubelet (DRA)' : 'DRA registration refused',
    );
  else if (event.type === 'prepared' || event.type === 'unprepared')
    logger[event.errors.length > 0 ? 'warn' : 'info'](
      { driver, claims: event.claims, ...(event.errors.length > 0 ? { errors: event.errors } : {}) },
      `claims ${event.type}`,
    );
  else logger.warn({ driver, event }, 'DRA plugin event');
}

function logSliceEvent(logger: Logger, driver: string, event: SlicePublisherEvent): void {
  if (event.type === 'published' || event.type === 'removed')
    logger.info({ driver, ...event }, 'ResourceSlices written');
  else if (event.type === 'rejected')
    logger.error({ driver, ...event }, 'ResourceSlices refused by the API server');
  else logger.warn({ driver, ...event }, 'ResourceSlices not written yet; retrying');
}
