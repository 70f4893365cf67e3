import type { ConformanceReport } from '../conformance-check';
import { createDraCheckResults } from './dra-check-results';
import type { DraConformanceOptions } from './dra-conformance-options';
import { type DraSuite, startDraSuite } from './dra-suite';
import { runHealthChecks } from './run-health-checks';
import { runKubeletRestartChecks } from './run-kubelet-restart-checks';
import { runNodeRebootChecks } from './run-node-reboot-checks';
import { runPluginRestartChecks } from './run-plugin-restart-checks';
import { runPrepareChecks } from './run-prepare-checks';
import { runPublicationChecks } from './run-publication-checks';
import { runRegistrationChecks } from './run-registration-checks';
import { runSchedulerChecks } from './run-scheduler-checks';
import { runUnprepareChecks } from './run-unprepare-checks';
import { isEvent } from './sim-event-recorder';
import { createSuiteClaim } from './suite-claim';

export type { DraConformanceOptions, DraConformanceReady } from './dra-conformance-options';

/**
 * Runs the DRA conformance suite against the driver named `driver`: starts (or uses) an API server and a
 * simulated kubelet with its DRA manager, waits for the driver's registration through the plugin watcher,
 * then checks registration, ResourceSlice publication, prepare and unprepare with the kubelet's rules, a
 * kubelet restart, a driver restart (when `restartPlugin` is given), a node reboot (when `rebootNode` is given)
 * and health, then (over its own API server) pods placed by the scheduler with real CEL and run by the
 * kubelet's pod side. Each check passes, fails, warns
 * (a recommended practice; a failure when `strict`) or is skipped; the report is `ok` when none failed. The
 * ResourceClaim it creates is deleted again.
 */
export async function runDraConformance(options: DraConformanceOptions): Promise<ConformanceReport> {
  const results = createDraCheckResults({
    driver: options.driver,
    strict: options.strict ?? false,
    onCheck: options.onCheck,
  });
  const cleanups: Array<() => Promise<void> | void> = [];
  const stop = new AbortController();
  try {
    const base = await startDraSuite({
      options,
      results,
      signal: stop.signal,
      onCleanup: (cleanup) => cleanups.push(cleanup),
    });
    // The kubelet deletes the node's slices at start; waiting for that first keeps the later reads stable.
    const startWipe = await base.events.seen(
      isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
      base.patienceMs,
    );
    await options.onReady?.({ apiServer: base.connection, nodeName: base.nodeName });
    const registered = await runRegistrationChecks(base);
    if (registered === undefined) return results.report();
    const suite: DraSuite = { ...base, registered, devices: [] };
    suite.devices = await runPublicationChecks(suite, startWipe);
    const claim = await createSuiteClaim(suite);
    await runPrepareChecks(suite, claim);
    await runKubeletRestartChecks(suite, claim);
    await runPluginRestartChecks(suite, claim);
    await runNodeRebootChecks(suite, claim);
    await runUnprepareChecks(suite, claim);
    await runHealthChecks(suite);
    await runSchedulerChecks(suite);
    return results.report();
  } finally {
    stop.abort();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
