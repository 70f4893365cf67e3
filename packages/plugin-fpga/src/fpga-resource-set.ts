import { status } from '@grpc/grpc-js';
import {
  createPushSource,
  defineResource,
  DevicePluginError,
  topologyPreferredAllocation,
  type DevicePlugin,
  type Logger,
  type PluginDevice,
  type PushSource,
} from '@kdp/core';
import type { FpgaInventory, FpgaPayload, InventoryResource } from './build-inventory';
import type { ProgrammingRule } from './fpga-config';
import { fpgaAllocation } from './fpga-allocation';
import type { RegionProgrammer } from './region-programmer';

/** Options of {@link createFpgaResourceSet}. */
export interface FpgaResourceSetOptions {
  readonly plugin: DevicePlugin;
  readonly programmer: RegionProgrammer;
  readonly logger: Logger;
  /** Called after a device was programmed, so the new `afu_id` is rescanned at once. */
  readonly onProgrammed?: () => void;
}

/** Keeps the plugin's resources in step with the latest inventory. */
export interface FpgaResourceSet {
  /** Adds new resources, pushes every resource's full list; a vanished resource is kept with zero devices. */
  apply(inventory: FpgaInventory): Promise<void>;
  /** The names served now. */
  names(): string[];
}

interface Entry {
  readonly source: PushSource<FpgaPayload>;
  /** Whether it was declared with PreStartContainer (fixed at registration). */
  readonly preStart: boolean;
  rule: ProgrammingRule | undefined;
}

/**
 * Resource names depend on what is loaded (af mode) and on the config (mode, programming rules), so resources
 * are added at run time, one gRPC server each. A region resource with a programming rule asks the kubelet for
 * PreStartContainer, where the rule's AFU is loaded; when a rule is added or removed later, the resource is
 * re-registered with the matching option.
 */
export function createFpgaResourceSet(options: FpgaResourceSetOptions): FpgaResourceSet {
  const { plugin, programmer, logger } = options;
  const entries = new Map<string, Entry>();

  const declare = (resource: InventoryResource): Entry => {
    const source = createPushSource<FpgaPayload>();
    const entry: Entry = { source, preStart: resource.programming !== undefined, rule: resource.programming };
    const name = resource.name;
    const common = {
      name,
      source,
      allocate: ({ devices }: { devices: readonly PluginDevice<FpgaPayload>[] }) =>
        fpgaAllocation(devices, entry.rule?.afuId),
      preferredAllocation: topologyPreferredAllocation<FpgaPayload>(),
    };
    plugin.addResource(
      entry.preStart
        ? defineResource<FpgaPayload>({
            ...common,
            options: { getPreferredAllocationAvailable: true, preStartRequired: true },
            preStartContainer: async ({ devices, unknownIds, signal }) => {
              if (unknownIds.length > 0) {
                throw new DevicePluginError(
                  status.NOT_FOUND,
                  `fpga-device-plugin: unknown ${name} devices: ${unknownIds.join(', ')}`,
                );
              }
              const rule = entry.rule;
              if (rule === undefined) return;
              const outcomes = await programmer.prepare(rule, devices, signal);
              if (outcomes.some((o) => o.action === 'programmed')) options.onProgrammed?.();
            },
          })
        : defineResource<FpgaPayload>({ ...common, options: { getPreferredAllocationAvailable: true } }),
    );
    logger.info({ resource: name, programming: entry.preStart }, 'resource added');
    return entry;
  };

  return {
    names: () => [...entries.keys()],
    apply: async (inventory) => {
      const seen = new Set<string>();
      for (const resource of inventory.resources) {
        seen.add(resource.name);
        let entry = entries.get(resource.name);
        const wantsPreStart = resource.programming !== undefined;
        if (entry !== undefined && entry.preStart !== wantsPreStart) {
          await plugin.removeResource(resource.name);
          entries.delete(resource.name);
          entry = undefined;
        }
        if (entry === undefined) {
          entry = declare(resource);
          entries.set(resource.name, entry);
        }
        entry.rule = resource.programming;
        entry.source.set(resource.devices);
      }
      for (const [name, entry] of entries) {
        if (!seen.has(name) && (entry.source.current()?.length ?? 0) > 0) {
          logger.info({ resource: name }, 'no devices left; advertising zero');
          entry.source.set([]);
        }
      }
    },
  };
}
