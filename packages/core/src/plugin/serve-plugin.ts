import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type { PluginMetrics } from '../metrics/plugin-metrics';
import { createCdiPublisher } from './cdi-publisher';
import type { AnyPluginDefinition, DeviceListStrategy } from './define-plugin';
import { handOver, strategiesOf } from './device-list';
import { createDeviceMemory } from './device-memory';
import { createFeaturePublisher } from './feature-publisher';
import { parseDuration } from './flags';
import { createPluginContext, watchedDirectories, type MutablePluginContext } from './plugin-context';
import { createResourceApplier } from './resource-applier';
import { createScanCycle } from './scan-cycle';
import { createScanScheduler, type ScanScheduler } from './scan-scheduler';
import type { ResourceHost } from './serve-mode';

/** What one plugin of a `serve` process is started with. */
export interface ServePluginOptions {
  readonly definition: AnyPluginDefinition;
  readonly flags: Readonly<Record<string, unknown>>;
  readonly host: Host;
  readonly cdiDir: string;
  /** `--device-list-strategy`; undefined: each resource's own default. */
  readonly deviceListStrategy: readonly DeviceListStrategy[] | undefined;
  /** Scan and probe counters (optional). */
  readonly metrics?: PluginMetrics;
  /** `--poll-interval`; undefined: the definition's own default. */
  readonly pollIntervalMs: number | undefined;
  /** `--nfd-features-dir`: where the definition's `features` go, as the NFD feature file `kdp-<name>`; undefined: nowhere. */
  readonly nfdFeaturesDir?: string | undefined;
  /** The running configuration. */
  readonly config: () => unknown;
  /** The process's device plugin, shared by every plugin it hosts (or a serve mode's host of this plugin). */
  readonly devicePlugin: ResourceHost;
  /** Resource names taken by any plugin of the process, with their owner. */
  readonly owners: Map<string, string>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly signal: AbortSignal;
}

/** One plugin running in a `serve` process. */
export interface ServedPlugin {
  /** Runs `setup` and the first scan, and applies its resources; resolves once they are added. */
  start(): Promise<void>;
  /** A new configuration is running: remembered devices are dropped and a scan runs. */
  reconfigured(): void;
  /** Stops scanning; `stopHook` runs the definition's `stop` hook (after the device plugin stopped). */
  stop(): Promise<void>;
  /** Runs the definition's `stop` hook; never throws. */
  stopHook(): Promise<void>;
}

/** Wires one plugin definition to the runtime: its scans, its resources and its device memory. */
export function servePlugin(options: ServePluginOptions): ServedPlugin {
  const { definition, logger } = options;
  let scheduler: ScanScheduler | undefined;
  const ctx: MutablePluginContext = createPluginContext({
    definition,
    command: 'serve',
    host: options.host,
    flags: options.flags,
    cdiDir: options.cdiDir,
    deviceListStrategy: options.deviceListStrategy,
    logger,
    clock: options.clock,
    signal: options.signal,
    config: options.config,
    rescan: () => scheduler?.rescan(),
  });
  const grace = definition.health?.vanishedGraceMs;
  const memory = createDeviceMemory({
    // A function of the context is read at every scan, so a reloaded configuration takes effect.
    graceMs: typeof grace === 'function' ? () => grace(ctx) : (grace ?? 0),
    keep: definition.health?.keepVanished ?? 'all',
    holdUntilHealthy: definition.health?.holdUntilHealthy === true,
  });
  const strategies = (spec: Parameters<typeof strategiesOf>[0]) =>
    strategiesOf(spec, options.deviceListStrategy);
  const cdi = createCdiPublisher({
    dir: options.cdiDir,
    plugin: definition.name,
    host: options.host,
    logger,
    strategies,
    signal: options.signal,
  });
  const applier = createResourceApplier({
    handOver: (spec, context, allocation) =>
      handOver(spec, context.devices, allocation, strategies(spec), () =>
        cdi.names(spec.name, context.devices),
      ),
    plugin: options.devicePlugin,
    logger,
    clock: options.clock,
    memory,
    claim: (name) => {
      const owner = options.owners.get(name);
      if (owner !== undefined && owner !== definition.name) return false;
      options.owners.set(name, definition.name);
      return true;
    },
    release: (name) => {
      if (options.owners.get(name) === definition.name) options.owners.delete(name);
    },
  });
  const features = createFeaturePublisher(definition, options.nfdFeaturesDir, logger);
  const cycle = createScanCycle({ definition, ctx, host: options.host, applier, cdi, features, logger });

  const defaultInterval = parseDuration(definition.scan.interval ?? '1s');
  return {
    async start() {
      ctx.state = definition.setup === undefined ? undefined : await definition.setup(ctx);
      scheduler = createScanScheduler({
        scan: cycle.run,
        intervalMs: () => options.pollIntervalMs ?? defaultInterval,
        watch: () => watchedDirectories(options.host, definition.scan.watch?.(ctx)),
        clock: options.clock,
        ...(definition.scan.probe !== undefined ? { changed: cycle.changed } : {}),
        observe: (event) => {
          options.metrics?.scan(definition.name, event);
          if (event === 'unchanged') options.devicePlugin.unchanged?.();
        },
      });
      await scheduler.start();
      const served = applier.names();
      if (served.length === 0)
        logger.warn({}, 'no resource to advertise yet; resources are added when devices appear');
    },
    reconfigured() {
      memory.forgetVanished();
      scheduler?.rescan();
    },
    stop: async () => scheduler?.stop(),
    async stopHook() {
      try {
        await definition.hooks?.stop?.(ctx);
      } catch (error) {
        logger.error({ err: error }, 'stop hook failed');
      }
      await cdi.remove();
      await features.remove();
    },
  };
}
