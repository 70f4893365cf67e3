import type { Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type { CdiPublisher } from './cdi-publisher';
import type { AnyPluginDefinition, ChangeProbe, ResourceSet } from './define-plugin';
import type { FeaturePublisher } from './feature-publisher';
import type { MutablePluginContext } from './plugin-context';
import { readChangeProbe } from './read-change-probe';
import type { ResourceApplier } from './resource-applier';
import { createWarningLog } from './warning-log';

/** What one scan of a plugin works with. */
export interface ScanCycleOptions {
  readonly definition: AnyPluginDefinition;
  readonly ctx: MutablePluginContext;
  readonly host: Host;
  readonly applier: ResourceApplier;
  readonly cdi: CdiPublisher;
  readonly features: FeaturePublisher;
  readonly logger: Logger;
}

/** A plugin's scan, resources, advertising and change probe, one step after the other. */
export interface ScanCycle {
  /** Scans and applies the result; a failing step is logged (once while it keeps failing), never thrown. */
  run(): Promise<void>;
  /**
   * Whether the change probe of the last good scan reads differently now; true without a baseline, and once
   * after a scan that brought a new probe (its baseline was read after the scan).
   */
  changed(): boolean;
}

/**
 * One plugin's scan cycle: scan, resources, CDI specs, the advertise hook, the change probe's baseline and the
 * node feature labels; a failure keeps the last devices and is logged once until a scan succeeds again.
 */
export function createScanCycle(options: ScanCycleOptions): ScanCycle {
  const { definition, ctx, host, logger } = options;
  const warnings = createWarningLog((warning) => logger.warn({}, warning));
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
  // A baseline read after the scan it belongs to (a new probe): a change between the two would never be seen,
  // so the next tick scans once more, with a baseline read before that scan.
  let verify = false;
  const run = async (): Promise<void> => {
    let set: ResourceSet;
    let step = 'scan';
    // Read before the scan: when the scan leaves the probe as it was, a change during the scan is still seen.
    const before = probe === undefined ? undefined : readChangeProbe(host, probe);
    baseline = undefined;
    verify = false;
    try {
      const scan = await definition.scan.run(ctx);
      step = 'resources';
      set = definition.resources(scan, ctx);
      step = 'change probe';
      const next = definition.scan.probe?.(scan, ctx);
      const nextKey = next === undefined ? '' : JSON.stringify(next);
      let cdiWarnings: string[] = [];
      const advertised = await options.applier.apply(set, async (advertising) => {
        step = 'CDI spec';
        cdiWarnings = await options.cdi.publish(advertising);
        step = 'advertise hook';
        await definition.hooks?.advertise?.(advertising, ctx);
      });
      warnings.report([...(advertised.warnings ?? []), ...cdiWarnings]);
      if (next !== undefined) {
        verify = nextKey !== probeKey || before === undefined;
        baseline = verify ? readChangeProbe(host, next) : before;
      }
      probe = next;
      probeKey = nextKey;
      excluded.report((advertised.excluded ?? []).map((entry) => `${entry.path}: ${entry.reason}`));
      // Last: the devices are served whatever happens to the labels; a failed write is tried again next scan.
      step = 'node feature labels';
      await options.features.publish(set, ctx);
    } catch (error) {
      fail(step, error);
      return;
    }
    if (failing !== undefined) logger.info({}, 'scan succeeded again');
    failing = undefined;
  };
  return {
    run,
    changed: () =>
      probe === undefined || baseline === undefined || verify || readChangeProbe(host, probe) !== baseline,
  };
}
