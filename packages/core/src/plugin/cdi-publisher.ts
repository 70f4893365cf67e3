import type { LifecycleLogger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import { validateCdiDeviceName, validateCdiKind } from '../cdi/cdi-names';
import type { CdiContainerEdits, CdiDevice } from '../cdi/cdi-spec';
import { createCdiSpecWriter, type CdiSpecWriter } from '../cdi/cdi-spec-writer';
import { Code } from '../code';
import { defaultAllocation } from '../container-allocation';
import { DevicePluginError } from '../device-plugin-error';
import type { ContainerAllocation, PluginDevice } from '../plugin-device';
import type { DeviceListStrategy, ResourceSet, ResourceSpec } from './define-plugin';

/** Options of {@link createCdiPublisher}. */
export interface CdiPublisherOptions {
  /** `--cdi-dir`. */
  readonly dir: string;
  /** The plugin's short name: part of every spec file's name, so two plugins never share a file. */
  readonly plugin: string;
  readonly host: Host;
  readonly logger: LifecycleLogger;
  /** The strategies of a resource (the flag's or its default). */
  readonly strategies: (spec: ResourceSpec<unknown>) => ReadonlySet<DeviceListStrategy>;
  readonly signal: AbortSignal;
}

/** Writes the CDI specs of a plugin's resources and answers which CDI names a container's devices have. */
export interface CdiPublisher {
  /**
   * Writes one spec per CDI kind for every resource handed over by CDI (each device's edits from the resource's
   * `allocate` hook for that device alone), removes the specs of kinds no longer published, and returns
   * warnings for devices left out (a device node missing under --dev-root, a name CDI refuses).
   */
  publish(set: ResourceSet): Promise<string[]>;
  /** The qualified CDI names of a container's devices; throws FAILED_PRECONDITION for a device left out of the spec. */
  names(resource: string, devices: readonly PluginDevice<unknown>[]): string[];
  /** Removes every spec file this publisher wrote. */
  remove(): Promise<void>;
}

/** The CDI kind of a resource: `k8s.device-plugin.<domain>/<name>` (`nvidia.com/gpu` → NVIDIA's own kind). */
export function defaultCdiKind(resourceName: string): string {
  const slash = resourceName.indexOf('/');
  const domain = resourceName.slice(0, slash);
  const name = resourceName.slice(slash + 1).replace(/[^A-Za-z0-9_.-]/g, '_');
  return `k8s.device-plugin.${domain}/${/^[A-Za-z]/.test(name) ? name : `r${name}`}`;
}

/** A CDI device name for a device ID: characters CDI refuses become `_`, and it starts and ends alphanumeric. */
export function cdiDeviceName(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9_.:-]/g, '_');
  const start = /^[A-Za-z0-9]/.test(safe) ? safe : `d${safe}`;
  return /[A-Za-z0-9]$/.test(start) ? start : `${start}0`;
}

/** What a device gets under CDI: its device nodes and mounts (environment is answered per container). */
export function cdiEditsOf(allocation: ContainerAllocation): CdiContainerEdits {
  return {
    deviceNodes: (allocation.devices ?? []).map((node) => ({
      path: node.containerPath,
      ...(node.hostPath !== node.containerPath ? { hostPath: node.hostPath } : {}),
      permissions: node.permissions ?? 'rw',
    })),
    mounts: (allocation.mounts ?? []).map((mount) => ({
      hostPath: mount.hostPath,
      containerPath: mount.containerPath,
      type: 'bind',
      options: ['rbind', mount.readOnly === true ? 'ro' : 'rw', 'nosuid'],
    })),
  };
}

type Entry = { readonly name: string } | { readonly problem: string };

/** Creates the publisher of one plugin instance; nothing is written before the first `publish`. */
export function createCdiPublisher(options: CdiPublisherOptions): CdiPublisher {
  const { host, logger } = options;
  const writers = new Map<string, CdiSpecWriter>();
  /** Per resource, per device ID: its qualified name or why it has none. */
  let entries = new Map<string, Map<string, Entry>>();

  const writerOf = (kind: string): CdiSpecWriter => {
    let writer = writers.get(kind);
    if (writer === undefined) {
      const slash = kind.indexOf('/');
      writer = createCdiSpecWriter({
        dir: options.dir,
        vendor: kind.slice(0, slash),
        class: kind.slice(slash + 1),
        instance: options.plugin,
      });
      writers.set(kind, writer);
    }
    return writer;
  };

  const publish = async (set: ResourceSet): Promise<string[]> => {
    const warnings: string[] = [];
    const byKind = new Map<string, Map<string, CdiDevice>>();
    const next = new Map<string, Map<string, Entry>>();
    const nodes = new Map<string, Promise<boolean>>();
    const exists = (path: string): Promise<boolean> => {
      let known = nodes.get(path);
      if (known === undefined) nodes.set(path, (known = host.devfs.hasNode(path)));
      return known;
    };
    for (const spec of set.resources) {
      if (!options.strategies(spec).has('cdi')) continue;
      const kind = spec.cdi?.kind ?? defaultCdiKind(spec.name);
      const kindCheck = validateCdiKind(kind);
      if (!kindCheck.valid) {
        warnings.push(`${spec.name}: no CDI spec: ${kindCheck.message}`);
        continue;
      }
      const devices = byKind.get(kind) ?? new Map<string, CdiDevice>();
      byKind.set(kind, devices);
      const resourceEntries = new Map<string, Entry>();
      next.set(spec.name, resourceEntries);
      for (const device of spec.devices) {
        const name = spec.cdi?.deviceName?.(device) ?? cdiDeviceName(device.id);
        const problem = await entryProblem(spec, device, name, devices, exists);
        if (typeof problem === 'string') {
          resourceEntries.set(device.id, { problem });
          if (problem !== NOTHING)
            warnings.push(`${spec.name}: device ${device.id} left out of the CDI spec: ${problem}`);
          continue;
        }
        devices.set(name, problem);
        resourceEntries.set(device.id, { name: writerOf(kind).qualifiedName(name) });
      }
    }
    for (const [kind, devices] of byKind) {
      const result = await writerOf(kind).write([...devices.values()]);
      if (result.changed)
        logger.info(
          { cdi: writerOf(kind).path, devices: devices.size },
          result.path ? 'CDI spec written' : 'CDI spec removed',
        );
    }
    for (const [kind, writer] of writers) {
      if (byKind.has(kind)) continue;
      await writer.remove();
      writers.delete(kind);
      logger.info({ cdi: writer.path }, 'CDI spec removed');
    }
    entries = next;
    return warnings;
  };

  /** The device's CDI entry, or why it has none (NOTHING: it needs no device node or mount at all). */
  const entryProblem = async (
    spec: ResourceSpec<unknown>,
    device: PluginDevice<unknown>,
    name: string,
    devices: ReadonlyMap<string, CdiDevice>,
    exists: (path: string) => Promise<boolean>,
  ): Promise<CdiDevice | string> => {
    const check = validateCdiDeviceName(name);
    if (!check.valid) return check.message;
    let allocation: ContainerAllocation;
    try {
      const context = { resource: spec.name, devices: [device], containerIndex: 0, signal: options.signal };
      allocation = spec.allocate ? await spec.allocate(context) : defaultAllocation([device]);
    } catch (error) {
      return `allocating it alone fails: ${error instanceof Error ? error.message : String(error)}`;
    }
    const edits = cdiEditsOf(allocation);
    if ((edits.deviceNodes?.length ?? 0) + (edits.mounts?.length ?? 0) === 0) return NOTHING;
    for (const node of edits.deviceNodes ?? []) {
      const path = node.hostPath ?? node.path;
      if (!(await exists(path))) return `${path} is not a device node under --dev-root`;
    }
    const cdiDevice: CdiDevice = { name, containerEdits: edits };
    const same = devices.get(name);
    if (same !== undefined && JSON.stringify(same) !== JSON.stringify(cdiDevice))
      return `CDI name ${name} is taken by a device with other edits`;
    return cdiDevice;
  };

  return {
    publish,
    names(resource, devices) {
      const resourceEntries = entries.get(resource);
      const names: string[] = [];
      for (const device of devices) {
        const entry = resourceEntries?.get(device.id);
        if (entry !== undefined && 'name' in entry) names.push(entry.name);
        else if (entry?.problem !== NOTHING)
          throw new DevicePluginError(
            Code.FailedPrecondition,
            `${resource} device ${device.id} has no CDI device: ${entry?.problem ?? 'not in the CDI spec yet'}`,
          );
      }
      return [...new Set(names)];
    },
    async remove() {
      for (const writer of writers.values())
        await writer.remove().catch((error: unknown) => logger.error({ err: error }, 'CDI spec not removed'));
      writers.clear();
      entries = new Map();
    },
  };
}

/** A device whose allocation has no device node and no mount: CDI has nothing to carry for it. */
const NOTHING = 'no device node or mount';
