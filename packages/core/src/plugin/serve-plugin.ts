import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type { PluginMetrics } from '../metrics/plugin-metrics';
import { createCdiPublisher } from './cdi-publisher';
import type { AnyPluginDefinition, ChangeProbe, DeviceListStrategy, ResourceSet } from './define-plugin';
import { handOver, strategiesOf } from './device-list';
import { createDeviceMemory } from './device-memory';
import { createFeatureFile, type FeatureFile } from './feature-file';
import { checkFeatureLabels } from './feature-labels';
import { parseDuration } from './flags';
import { createPluginContext, watchedDirectories, type MutablePluginContext } from './plugin-context';
import { createResourceApplier } from './resource-applier';
import { readChangeProbe } from './read-change-probe';
import { createScanScheduler, type ScanScheduler } from './scan-scheduler';
import type { ResourceHost } from './serve-mode';
import { createWarningLog } from './warning-log';

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
  const warnings = createWarningLog((warning) => logger.warn({}, warning));
  const featureFile: FeatureFile | undefined =
    options.nfdFeaturesDir !== undefined && definition.features !== undefined
      ? createFeatureFile({
          dir: options.nfdFeaturesDir,
          name: `kdp-${definition.name}`,
          comment: `${definition.binary} ${definition.version}: node feature labels, removed when it stops`,
        })
      : undefined;
  const labelWarnings = createWarningLog((warning) => logger.warn({}, warning));
  /** Writes the labels of the scan's own set (what is on the node now, not remembered devices) when they changed. */
  const publishFeatures = async (set: ResourceSet): Promise<void> => {
    if (featureFile === undefined || definition.features === undefined) return;
    const checked = checkFeatureLabels(await definition.features(set, ctx));
    labelWarnings.report(checked.problems);
    if (await featureFile.write(checked.labels))
      logger.info(
        { file: featureFile.path, labels: Object.keys(checked.labels).length },
        'node feature labels written',
      );
  };
  const excluded = createWarningLog((entry) => logger.debug({ excluded: entry }, 'seen but not advertised'));
  let failing: string | undefined;
  const fail = (what: string, error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    const kept = what === 'scan' || what === 'resources' ? '; keeping the last devices' : '';
    if (failing !== `${what}: ${message}`) logger.error({ err: error }, `${what} failed${kept}`);
    failing = `${what}: ${message}`;
  };

  // The change probe of the last good scan, and what it read right then.
  let probe: ChangeProbe | undefined;
  let probeKey = '';
  let baseline: string | undefined;
  const scanAndApply = async (): Promise<void> => {
    let set: ResourceSet;
    let step = 'scan';
    // Read before the scan: when the scan leaves the probe as it was, a change during the scan is still seen.
    const before = probe === undefined ? undefined : readChangeProbe(options.host, probe);
    baseline = undefined;
    try {
      const scan = await definition.scan.run(ctx);
      step = 'resources';
      set = definition.resources(scan, ctx);
      step = 'change probe';
      const next = definition.scan.probe?.(scan, ctx);
      const nextKey = next === undefined ? '' : JSON.stringify(next);
      let cdiWarnings: string[] = [];
      const advertised = await applier.apply(set, async (advertising) => {
        step = 'CDI spec';
        cdiWarnings = await cdi.publish(advertising);
        step = 'advertise hook';
        await definition.hooks?.advertise?.(advertising, ctx);
      });
      warnings.report([...(advertised.warnings ?? []), ...cdiWarnings]);
      if (next !== undefined)
        baseline =
          nextKey === probeKey && before !== undefined ? before : readChangeProbe(options.host, next);
      probe = next;
      probeKey = nextKey;
      excluded.report((advertised.excluded ?? []).map((entry) => `${entry.path}: ${entry.reason}`));
      // Last: the devices are served whatever happens to the labels; a failed write is tried again next scan.
      step = 'node feature labels';
      await publishFeatures(set);
    } catch (error) {
      fail(step, error);
      return;
    }
    if (failing !== undefined) logger.info({}, 'scan succeeded again');
    failing = undefined;
  };

  const defaultInterval = parseDuration(definition.scan.interval ?? '1s');
  return {
    async start() {
      ctx.state = definition.setup === undefined ? undefined : await definition.setup(ctx);
      scheduler = createScanScheduler({
        scan: scanAndApply,
        intervalMs: () => options.pollIntervalMs ?? defaultInterval,
        watch: () => watchedDirectories(options.host, definition.scan.watch?.(ctx)),
        clock: options.clock,
        ...(definition.scan.probe !== undefined
          ? {
              changed: () =>
                probe === undefined ||
                baseline === undefined ||
                readChangeProbe(options.host, probe) !== baseline,
            }
          : {}),
        observe: (event) => options.metrics?.scan(definition.name, event),
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
      await featureFile
        ?.remove()
        .catch((error: unknown) => logger.warn({ err: error }, 'cannot remove the node feature file'));
    },
  };
}
