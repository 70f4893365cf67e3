import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import { defaultAllocation } from '../container-allocation';
import type { ContainerAllocation } from '../plugin-device';
import type { AnyPluginDefinition } from './define-plugin';
import { createDeviceMemory, heldExclusion } from './device-memory';
import type { DiscoveredDevice, DiscoveredResource, DiscoverResult } from './discover-result';
import { handOver, strategiesOf } from './device-list';
import type { ModeDiscoverResource } from './mode-discover';
import { createPluginContext } from './plugin-context';

/** What `discover` runs one plugin with. */
export interface DiscoverPluginOptions {
  readonly definition: AnyPluginDefinition;
  readonly flags: Readonly<Record<string, unknown>>;
  readonly host: Host;
  readonly cdiDir: string;
  readonly config: unknown;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** Called with each resource and the devices it would advertise (`discover --mode`). */
  readonly onResource?: ((resource: ModeDiscoverResource) => void) | undefined;
}

/**
 * One scan of one plugin, as `discover` prints it. The devices come from the same scan and `resources`
 * function as in `serve`, and each device's `deviceSpecs`, `mounts` and `envs` from the same `allocate` hook
 * that answers Allocate, called for that device alone: what is printed is what a pod would receive.
 */
export async function discoverPlugin(options: DiscoverPluginOptions): Promise<DiscoverResult> {
  const { definition, signal } = options;
  const ctx = createPluginContext({
    definition,
    command: 'discover',
    host: options.host,
    flags: options.flags,
    cdiDir: options.cdiDir,
    logger: options.logger,
    clock: options.clock,
    signal,
    config: () => options.config,
    rescan: () => undefined,
  });
  ctx.state = definition.setup === undefined ? undefined : await definition.setup(ctx);
  const set = definition.resources(await definition.scan.run(ctx), ctx);
  // One scan has no history: a device that is Unhealthy now was never seen healthy.
  const memory = createDeviceMemory({
    graceMs: 0,
    keep: 'all',
    holdUntilHealthy: definition.health?.holdUntilHealthy === true,
  });
  const excluded = [...(set.excluded ?? [])];
  const warnings = [...(set.warnings ?? [])];
  const resources: DiscoveredResource[] = [];
  for (const spec of set.resources) {
    const { devices, held } = memory.advertise(spec.name, spec.devices, options.clock.now());
    excluded.push(...held.map(heldExclusion));
    options.onResource?.({ spec, devices });
    const discovered: DiscoveredDevice[] = [];
    for (const device of devices) {
      let allocation: ContainerAllocation = {};
      try {
        const context = { resource: spec.name, devices: [device], containerIndex: 0, signal };
        const own = spec.allocate ? await spec.allocate(context) : defaultAllocation([device]);
        // What the resource's default strategy hands over (CDI names aside: discover writes no spec).
        const strategies = new Set(strategiesOf(spec, undefined));
        strategies.delete('cdi');
        allocation = handOver(spec, [device], own, strategies);
      } catch (error) {
        warnings.push(
          `${spec.name}: allocating ${device.id} alone fails: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      discovered.push({
        id: device.id,
        health: device.health,
        numaNodes: device.numaNodes ?? [],
        pciAddress: device.pciAddress ?? null,
        deviceSpecs: (allocation.devices ?? []).map((node) => ({
          ...node,
          permissions: node.permissions ?? 'rw',
        })),
        mounts: (allocation.mounts ?? []).map((mount) => ({ ...mount, readOnly: mount.readOnly === true })),
        envs: allocation.envs ?? {},
        attributes: {
          ...device.attributes,
          ...(device.problem !== undefined && device.health !== 'Healthy' ? { problem: device.problem } : {}),
        },
      });
    }
    resources.push({ resourceName: spec.name, devices: discovered });
  }
  return { resources, excluded, warnings };
}
