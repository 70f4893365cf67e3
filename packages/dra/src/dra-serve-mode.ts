import { stat } from 'node:fs/promises';
import type { Logger } from '@kdp/base';
import type { AnyResourceDeclaration, ContainerAllocation, KubeApiAccess, PluginDevice } from '@kdp/core';
import {
  flag,
  UsageError,
  type AnyPluginDefinition,
  type ResourceHost,
  type ServeMode,
  type ServeModeBackend,
  type ServeModeContext,
} from '@kdp/core/plugin';
import type { PreparedDevice, PrepareInput, PrepareOutput } from './claim-preparer';
import { createKubeClaimReader } from './claim-reader';
import { createDraPlugin, type DraPlugin, type DraPluginEvent } from './dra-plugin';
import { deviceEdits, draPoolName, envEdits, toSliceDevice } from './dra-serve-mode-devices';
import type { DeviceHealthReport, HealthSource } from './health-service';
import { loadKubeAccess } from './load-kube-access';
import type { SliceDevice } from './pool-slices';
import { createSlicePublisher, type SlicePublisher, type SlicePublisherEvent } from './slice-publisher';
import { DRA_PLUGINS_DIR } from './socket-names';

/** The domain of the driver names `createDraServeMode` gives plugins: `gpu.kdp.dev`, `usb.kdp.dev`, … */
export const DRA_DRIVER_DOMAIN = 'kdp.dev';

/** Something that happened to one plugin's driver in DRA mode (tests and logs). */
export type DraServeModeEvent =
  | ({ readonly driver: string; readonly source: 'plugin' } & DraPluginEvent)
  | ({ readonly driver: string; readonly source: 'slices' } & SlicePublisherEvent);

/** Options of {@link createDraServeMode}. */
export interface DraServeModeOptions {
  /** A plugin's driver name; default `<plugin name>.kdp.dev`. */
  readonly driverName?: ((definition: AnyPluginDefinition) => string) | undefined;
  /** The API server; default from `--kubeconfig`, else the pod's service account. */
  readonly access?: KubeApiAccess | undefined;
  /** How long device changes are collected before the slices are written; default 100 ms. */
  readonly sliceDebounceMs?: number | undefined;
  /** `health_check_timeout_seconds` of the health stream; default 30. */
  readonly healthCheckTimeoutSeconds?: number | undefined;
  /** Where procfs is read for the node's boot ID; default `--proc-root` (/proc for a plugin without it). */
  readonly procRoot?: string | undefined;
  readonly onEvent?: ((event: DraServeModeEvent) => void) | undefined;
}

/** One resource of a driver: its declaration and its devices now, by DRA device name. */
interface ServedResource {
  readonly declaration: AnyResourceDeclaration;
  readonly pool: string;
  unsubscribe: () => void;
  devices: ReadonlyMap<string, PluginDevice<unknown>>;
  slice: readonly SliceDevice[];
}

/** One plugin served as one DRA driver. */
interface Driver {
  readonly name: string;
  readonly host: ResourceHost;
  start(): Promise<void>;
  stop(): Promise<void>;
  registered(): boolean;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The `dra` serve mode (`serve --mode dra`): each plugin of the process becomes the DRA driver
 * `<plugin>.kdp.dev`, fed by the same scans, device memory and allocate hooks as the device-plugin mode. Each
 * resource is a pool `<node>/<resource>` of ResourceSlices (healthy devices only; names from the device IDs,
 * attributes from the plugin's, `numa`, `resource`, `id` and the standard PCI ones); a claim's device is prepared
 * by the resource's own `allocate`, so a container gets the device nodes, mounts and environment the
 * device-plugin mode's Allocate gives it: nodes and mounts as the device's CDI edits, environment as the claim's.
 * Flags: `--kubeconfig FILE`, `--dra-plugins-dir DIR` [/var/lib/kubelet/plugins]; `--node-name` is required.
 */
export function createDraServeMode(options: DraServeModeOptions = {}): ServeMode {
  return {
    description:
      'Dynamic Resource Allocation: ResourceSlices and a DRA kubelet plugin per plugin (<plugin>.kdp.dev)',
    flags: {
      kubeconfig: flag.path({
        description: 'kubeconfig of the API server; absent: the in-cluster service account',
        valueName: 'FILE',
      }),
      'dra-plugins-dir': flag.path({
        description: "the kubelet's DRA plugin directory (sockets, checkpoints)",
        valueName: 'DIR',
        default: DRA_PLUGINS_DIR,
      }),
    },
    create: (context) => createBackend(context, options),
  };
}

async function createBackend(
  context: ServeModeContext,
  options: DraServeModeOptions,
): Promise<ServeModeBackend> {
  const { nodeName, common } = context;
  if (nodeName === undefined || nodeName === '')
    throw new UsageError('--mode dra needs the node name (--node-name or $NODE_NAME)');
  const draPluginsDir = (context.flags['dra-plugins-dir'] as string | undefined) ?? DRA_PLUGINS_DIR;
  for (const [name, dir] of [
    ['--plugins-registry-dir', common.pluginsRegistryDir],
    ['--dra-plugins-dir', draPluginsDir],
  ] as const) {
    const info = await stat(dir).catch(() => undefined);
    if (info?.isDirectory() !== true) throw new UsageError(`${name} ${dir}: no such directory`);
  }
  const kubeconfig = context.flags['kubeconfig'] as string | undefined;
  let access = options.access;
  if (access === undefined) {
    try {
      access = await loadKubeAccess({ kubeconfig, env: context.env });
    } catch (error) {
      throw new UsageError(messageOf(error));
    }
  }
  const drivers = new Map<AnyPluginDefinition, Driver>();
  for (const definition of context.plugins) {
    const name = options.driverName?.(definition) ?? `${definition.name}.${DRA_DRIVER_DOMAIN}`;
    drivers.set(
      definition,
      createDriver({
        name,
        nodeName,
        access,
        draPluginsDir,
        context,
        options,
        logger: context.loggerOf(definition),
      }),
    );
  }
  return {
    resources(definition) {
      const driver = drivers.get(definition);
      if (driver === undefined) throw new Error(`plugin ${definition.name} is not served by this process`);
      return driver.host;
    },
    async start() {
      for (const driver of drivers.values()) await driver.start();
    },
    async stop() {
      await Promise.all([...drivers.values()].map((driver) => driver.stop()));
    },
    readiness() {
      const waiting = [...drivers.values()]
        .filter((driver) => !driver.registered())
        .map((driver) => driver.name);
      return waiting.length === 0
        ? { ok: true }
        : { ok: false, message: `not registered: ${waiting.join(', ')}` };
    },
  };
}

interface DriverOptions {
  readonly name: string;
  readonly nodeName: string;
  readonly access: KubeApiAccess;
  readonly draPluginsDir: string;
  readonly context: ServeModeContext;
  readonly options: DraServeModeOptions;
  readonly logger: Logger;
}

function createDriver(driverOptions: DriverOptions): Driver {
  const { name, nodeName, access, context, options, logger } = driverOptions;
  const { common } = context;
  const resources = new Map<string, ServedResource>();
  const pools = new Map<string, ServedResource>();
  const healthListeners = new Set<() => void>();
  let publisher: SlicePublisher | undefined;
  let plugin: DraPlugin | undefined;
  let started = false;

  const slicePools = (): Map<string, readonly SliceDevice[]> =>
    new Map([...pools].map(([pool, resource]) => [pool, resource.slice]));

  const changed = (): void => {
    if (started) publisher?.update(slicePools());
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
    changed();
  };

  const host: ResourceHost = {
    addResource(declaration) {
      if (resources.has(declaration.name)) throw new Error(`resource ${declaration.name} is already served`);
      const pool = draPoolName(nodeName, declaration.name);
      if (pools.has(pool))
        throw new Error(`resource ${declaration.name}: pool ${pool} is taken by another resource`);
      const entry: ServedResource = {
        declaration: declaration as AnyResourceDeclaration,
        pool,
        devices: new Map(),
        slice: [],
        unsubscribe: () => undefined,
      };
      resources.set(declaration.name, entry);
      pools.set(pool, entry);
      entry.unsubscribe = declaration.source.subscribe((list) => setDevices(entry, list));
      logger.info({ resource: declaration.name, driver: name, pool }, 'resource served through DRA');
    },
    async removeResource(resourceName) {
      const entry = resources.get(resourceName);
      if (entry === undefined) throw new Error(`resource ${resourceName} is not served by this driver`);
      entry.unsubscribe();
      resources.delete(resourceName);
      pools.delete(entry.pool);
      changed();
    },
  };

  const allocate = async (
    entry: ServedResource,
    devices: readonly PluginDevice<unknown>[],
  ): Promise<ContainerAllocation> => {
    const allocateHook = entry.declaration.allocate;
    if (allocateHook === undefined) return {};
    return allocateHook({
      resource: entry.declaration.name,
      devices,
      containerIndex: 0,
      signal: context.signal,
    });
  };

  /** One claim: each device's own allocation (nodes, mounts, CDI names) and the claim's environment. */
  const prepare = async ({ results }: PrepareInput): Promise<PrepareOutput> => {
    const groups = new Map<
      ServedResource,
      { result: (typeof results)[number]; device: PluginDevice<unknown> }[]
    >();
    for (const result of results) {
      const entry = pools.get(result.pool);
      if (entry === undefined) throw new Error(`pool ${result.pool} is not served by ${name} on this node`);
      const device = entry.devices.get(result.device);
      if (device === undefined) throw new Error(`device ${result.pool}/${result.device} is not on this node`);
      if (device.health !== 'Healthy')
        throw new Error(
          `device ${result.pool}/${result.device} (${device.id}) is Unhealthy${device.problem ? `: ${device.problem}` : ''}`,
        );
      groups.set(entry, [...(groups.get(entry) ?? []), { result, device }]);
    }
    const prepared: PreparedDevice[] = [];
    const env: Record<string, string> = {};
    for (const [entry, items] of groups) {
      // The environment names every device of the claim at once (NVIDIA_VISIBLE_DEVICES=a,b), as one Allocate does.
      const all = await allocate(
        entry,
        items.map((item) => item.device),
      );
      Object.assign(env, all.envs ?? {});
      // DRA has no PreStartContainer: what a resource does there (an FPGA's programming) is done in prepare.
      await entry.declaration.preStartContainer?.({
        resource: entry.declaration.name,
        devices: items.map((item) => item.device),
        unknownIds: [],
        signal: context.signal,
      });
      for (const { result, device } of items) {
        const own = items.length === 1 ? all : await allocate(entry, [device]);
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
  };

  const health: HealthSource = {
    current: () =>
      [...pools].flatMap(([pool, entry]) =>
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
  };

  const emit = options.onEvent ?? (() => undefined);
  const onPluginEvent = (event: DraPluginEvent): void => {
    emit({ driver: name, source: 'plugin', ...event });
    if (event.type === 'registration')
      logger[event.registered ? 'info' : 'error'](
        { driver: name, ...(event.error !== '' ? { problem: event.error } : {}) },
        event.registered ? 'registered with the kubelet (DRA)' : 'DRA registration refused',
      );
    else if (event.type === 'prepared' || event.type === 'unprepared')
      logger[event.errors.length > 0 ? 'warn' : 'info'](
        { driver: name, claims: event.claims, ...(event.errors.length > 0 ? { errors: event.errors } : {}) },
        `claims ${event.type}`,
      );
    else logger.warn({ driver: name, event }, 'DRA plugin event');
  };
  const onSliceEvent = (event: SlicePublisherEvent): void => {
    emit({ driver: name, source: 'slices', ...event });
    if (event.type === 'published' || event.type === 'removed')
      logger.info({ driver: name, ...event }, 'ResourceSlices written');
    else if (event.type === 'rejected')
      logger.error({ driver: name, ...event }, 'ResourceSlices refused by the API server');
    else logger.warn({ driver: name, ...event }, 'ResourceSlices not written yet; retrying');
  };

  return {
    name,
    host,
    async start() {
      publisher = createSlicePublisher({
        access,
        driverName: name,
        nodeName,
        pools: slicePools(),
        clock: context.clock,
        ...(options.sliceDebounceMs !== undefined ? { debounceMs: options.sliceDebounceMs } : {}),
        onEvent: onSliceEvent,
      });
      plugin = createDraPlugin({
        driverName: name,
        nodeName,
        driver: { prepare },
        claims: createKubeClaimReader({ access }),
        pluginsRegistryDir: common.pluginsRegistryDir,
        draPluginsDir: driverOptions.draPluginsDir,
        podUid: context.env['POD_UID'] || undefined,
        cdi: { dir: common.cdiDir },
        procRoot: options.procRoot ?? common.procRoot,
        isLocalPool: (pool) => pools.has(pool) || pool.startsWith(`${nodeName}/`),
        health,
        healthCheckTimeoutSeconds: options.healthCheckTimeoutSeconds,
        clock: context.clock,
        logger,
        onEvent: onPluginEvent,
      });
      started = true;
      publisher.start();
      await plugin.start();
    },
    async stop() {
      started = false;
      await plugin?.stop();
      await publisher?.stop();
      for (const entry of resources.values()) entry.unsubscribe();
    },
    registered: () => plugin?.registrationStatus()?.registered === true,
  };
}
