import type { Clock, Logger } from '@kdp/base';
import { defaultAllocation } from '../container-allocation';
import { createPushSource, type PushSource } from '../device-source';
import type { ContainerAllocation, PluginDevice } from '../plugin-device';
import { defineResource, type AllocateContext, type ResourceDeclaration } from '../resource-declaration';
import type { ResourceDraHooks } from '../resource-dra-hooks';
import type { ResourceSet, ResourceSpec } from './define-plugin';
import { heldExclusion, type DeviceMemory } from './device-memory';
import type { ResourceHost } from './serve-mode';
import type { ExcludedDevice } from './discover-result';

/** Options of {@link createResourceApplier}. */
export interface ResourceApplierOptions {
  /** The process's device plugin, shared by every plugin it hosts. */
  readonly plugin: ResourceHost;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly memory: DeviceMemory;
  /** Takes a resource name for this plugin; false when another plugin of the process serves it. */
  readonly claim: (name: string) => boolean;
  /** Gives a name back. */
  readonly release: (name: string) => void;
  /**
   * Turns what a resource's `allocate` hook returned into the container's answer (the device-list strategy);
   * default: unchanged.
   */
  readonly handOver?: (
    spec: ResourceSpec<unknown>,
    context: AllocateContext<unknown>,
    allocation: ContainerAllocation,
  ) => ContainerAllocation;
}

/** Keeps a plugin's served resources equal to its latest resource set. */
export interface ResourceApplier {
  /**
   * Works out the set as it will be advertised (remembered devices included, never-healthy devices moved to
   * `excluded`), runs `beforeAdvertise` with it, then adds the resources that appeared (registered at once),
   * pushes a new device list to those whose devices changed, and removes (socket unlinked) those that
   * disappeared and hold no remembered device. Resolves with the advertised set.
   */
  apply(
    set: ResourceSet,
    beforeAdvertise?: (advertised: ResourceSet) => Promise<void> | void,
  ): Promise<ResourceSet>;
  /** The names served now. */
  names(): string[];
}

interface Entry {
  spec: ResourceSpec<unknown>;
  readonly source: PushSource<unknown>;
  /** Which optional hooks it was registered with; a change re-registers it. */
  readonly shape: string;
  readonly logger: Logger;
  /** Last logged health per device ID. */
  health: Map<string, string>;
}

const shapeOf = (spec: ResourceSpec<unknown>): string =>
  `${spec.preferredAllocation ? 'preferred' : ''}/${spec.preStartContainer ? 'prestart' : ''}`;

/**
 * The declaration a resource is served under: its allocate hook handed over by the device-list strategy
 * (`allocate`), or whole for CDI alone (`allocateForCdi`), each followed by `afterAllocate` and the device memory;
 * its device-list variables; its optional hooks as the spec has them now.
 */
function declareResource(
  options: ResourceApplierOptions,
  entry: () => Entry,
  spec: ResourceSpec<unknown>,
  source: PushSource<unknown>,
): ResourceDeclaration<unknown> {
  const { memory } = options;
  /** The resource's allocate hook, its answer handed over by `answer`, then `afterAllocate` and the memory. */
  const allocateWith = async (
    context: AllocateContext<unknown>,
    answer: (current: ResourceSpec<unknown>, allocation: ContainerAllocation) => ContainerAllocation,
  ): Promise<ContainerAllocation> => {
    const current = entry().spec;
    const allocation = current.allocate
      ? await current.allocate(context)
      : defaultAllocation(context.devices);
    const handed = answer(current, allocation);
    await current.afterAllocate?.(context, allocation);
    memory.allocated(
      spec.name,
      context.devices.map((device) => device.id),
    );
    return handed;
  };
  return defineResource<unknown>({
    name: spec.name,
    source,
    options: {
      preStartRequired: spec.preStartContainer !== undefined,
      getPreferredAllocationAvailable: spec.preferredAllocation !== undefined,
    },
    allocate: (context) =>
      allocateWith(context, (current, allocation) =>
        options.handOver ? options.handOver(current, context, allocation) : allocation,
      ),
    // Under CDI alone (DRA) the device nodes and mounts go with the devices whatever the strategy.
    allocateForCdi: (context) => allocateWith(context, (_current, allocation) => allocation),
    deviceListEnv: (devices) => entry().spec.deviceListEnv?.(devices) ?? {},
    dra: currentDraHooks(entry),
    ...(spec.preferredAllocation !== undefined
      ? { preferredAllocation: (context) => entry().spec.preferredAllocation?.(context) ?? [] }
      : {}),
    ...(spec.preStartContainer !== undefined
      ? { preStartContainer: (context) => entry().spec.preStartContainer?.(context) }
      : {}),
  });
}

/** A resource's DRA hooks as its spec has them now (a scan may bring new ones). */
function currentDraHooks(entry: () => Entry): ResourceDraHooks<unknown> {
  return {
    taintEffect: (device) => entry().spec.dra?.taintEffect?.(device) ?? 'NoSchedule',
    pool: (devices) => entry().spec.dra?.pool?.(devices) ?? { devices },
    prepare: async (context) =>
      (await entry().spec.dra?.prepare?.(context)) ?? context.devices.map(() => undefined),
    unprepare: async (context) => entry().spec.dra?.unprepare?.(context),
    get sharing() {
      return entry().spec.dra?.sharing;
    },
    // Present only where the spec has them: a resource without them shares nothing, reports no network data and
    // takes no claim configuration (a configuration reload changes them without a re-registration).
    get networkData() {
      return entry().spec.dra?.networkData;
    },
    get config() {
      return entry().spec.dra?.config;
    },
  };
}

/** Creates the applier of one plugin. */
export function createResourceApplier(options: ResourceApplierOptions): ResourceApplier {
  const { plugin, logger, memory } = options;
  const entries = new Map<string, Entry>();
  const refused = new Set<string>();

  const add = (spec: ResourceSpec<unknown>): Entry | undefined => {
    if (!options.claim(spec.name)) {
      if (!refused.has(spec.name))
        logger.error(
          { resource: spec.name },
          'another plugin of this process serves this resource; not added',
        );
      refused.add(spec.name);
      return undefined;
    }
    const source = createPushSource<unknown>();
    const entry: Entry = {
      spec,
      source,
      shape: shapeOf(spec),
      logger: logger.child({ resource: spec.name }),
      health: new Map(),
    };
    try {
      plugin.addResource(declareResource(options, () => entry, spec, source));
    } catch (error) {
      options.release(spec.name);
      if (!refused.has(spec.name))
        logger.error({ resource: spec.name, err: error }, 'resource cannot be served');
      refused.add(spec.name);
      return undefined;
    }
    refused.delete(spec.name);
    entries.set(spec.name, entry);
    return entry;
  };

  /** Stops serving a resource (its socket is unlinked); `forget` also drops what is remembered of its devices. */
  const remove = async (name: string, forget: boolean): Promise<void> => {
    entries.delete(name);
    if (forget) memory.forget(name);
    options.release(name);
    await plugin.removeResource(name);
  };

  const logHealth = (entry: Entry, devices: readonly PluginDevice<unknown>[]): void => {
    const next = new Map<string, string>();
    for (const device of devices) {
      const key = device.health === 'Healthy' ? 'Healthy' : `Unhealthy: ${device.problem ?? 'unknown'}`;
      next.set(device.id, key);
      const before = entry.health.get(device.id);
      if (before === key || (before === undefined && device.health === 'Healthy')) continue;
      const fields = {
        device: device.id,
        health: device.health,
        ...(device.problem ? { problem: device.problem } : {}),
      };
      if (device.health === 'Healthy') entry.logger.info(fields, 'device healthy again');
      else entry.logger.warn(fields, 'device unhealthy');
    }
    entry.health = next;
  };

  return {
    async apply(set, beforeAdvertise) {
      const now = options.clock.now();
      const specs = new Map<string, ResourceSpec<unknown>>();
      const warnings = [...(set.warnings ?? [])];
      for (const spec of set.resources) {
        if (specs.has(spec.name))
          warnings.push(`${spec.name} is described twice; the first description is used`);
        else specs.set(spec.name, spec);
      }
      // First what will be advertised (remembered devices in, never-healthy ones out), then the hook, then the
      // kubelet: files a container needs for a device (a CDI spec) exist before the device is offered.
      const excluded: ExcludedDevice[] = [...(set.excluded ?? [])];
      const advertised: ResourceSpec<unknown>[] = [];
      const gone: string[] = [];
      for (const name of new Set([...entries.keys(), ...specs.keys()])) {
        const spec = specs.get(name) ?? entries.get(name)?.spec;
        if (spec === undefined) continue;
        const { devices, held } = memory.advertise(name, specs.get(name)?.devices ?? [], now, set.retired);
        excluded.push(...held.map(heldExclusion));
        if (!specs.has(name) && devices.length === 0) gone.push(name);
        else advertised.push({ ...spec, devices });
      }
      const result: ResourceSet = { resources: advertised, excluded, warnings };
      await beforeAdvertise?.(result);
      for (const name of gone) {
        const entry = entries.get(name);
        if (entry === undefined) continue;
        await remove(name, true);
        entry.logger.info({}, 'resource gone; removed');
      }
      for (const spec of advertised) {
        let entry = entries.get(spec.name);
        if (entry !== undefined && entry.shape !== shapeOf(spec)) {
          await remove(spec.name, false);
          entry.logger.info({ hooks: shapeOf(spec) }, 'resource hooks changed; registering again');
          entry = undefined;
        }
        if (entry === undefined) {
          entry = add(spec);
          if (entry === undefined) continue;
          entry.logger.info({ devices: spec.devices.length }, 'resource added');
        }
        entry.spec = spec;
        logHealth(entry, spec.devices);
        entry.source.set(spec.devices);
      }
      return result;
    },
    names: () => [...entries.keys()],
  };
}
