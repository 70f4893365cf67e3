import type { DraRegisteredEvent } from '../../dra/dra-events';
import type { SimEvent } from '../../sim-events';
import { seconds } from '../check-catalog';
import type { DraSuiteBase } from './dra-suite';
import { checkPluginInfo, checkServices, probeRegistration } from './registration-checks';
import { isEvent } from './sim-event-recorder';

/** Fails `registers` (and skips the rest) for a driver that did not register or was refused. */
function failRegistration(
  suite: DraSuiteBase,
  outcome: Extract<SimEvent, { type: 'register-rejected' }> | undefined,
): void {
  const { driver, catalog, results, registrationTimeoutMs } = suite;
  const others = [
    ...new Set(
      suite.events.recorded.flatMap((e) =>
        e.type === 'dra-registered' ? [e.driver] : e.type === 'register-rejected' ? [e.resource] : [],
      ),
    ),
  ].filter((name) => name !== driver);
  results.fail(
    catalog.registers,
    outcome === undefined
      ? `no DRA driver ${driver} registered in ${suite.options.pluginsRegistryDir} within ${seconds(registrationTimeoutMs)}` +
          `${others.length === 0 ? '' : ` (seen instead: ${others.join(', ')})`}`
      : `the kubelet refused it: ${outcome.message}`,
  );
  results.skipRest(
    outcome === undefined
      ? 'not run: the driver never registered'
      : 'not run: the kubelet refused the driver',
  );
}

/** GetInfo and NotifyRegistrationStatus on the registration socket, as the plugin watcher calls them. */
async function checkRegistrationService(suite: DraSuiteBase, registered: DraRegisteredEvent): Promise<void> {
  const { catalog, results } = suite;
  const probe = await probeRegistration(registered.socketPath, suite.patienceMs);
  if (probe.info === undefined) {
    results.fail(
      catalog.pluginInfo,
      `GetInfo on ${registered.socketPath} failed: ${probe.infoError ?? 'no answer'}`,
    );
    results.skip(catalog.supportedServices, 'not run: GetInfo failed');
    results.skip(catalog.serviceOrder, 'not run: GetInfo failed');
    results.skip(catalog.registrationStatus, 'not run: GetInfo failed');
    return;
  }
  results.add(checkPluginInfo(probe.info, suite.driver));
  for (const check of checkServices(probe.info.supportedVersions)) results.add(check);
  if (probe.notifyError === undefined) results.pass(catalog.registrationStatus, 'answered');
  else
    results.fail(
      catalog.registrationStatus,
      `NotifyRegistrationStatus failed: ${probe.notifyError}; the kubelet then counts the registration as failed and retries it`,
    );
}

/**
 * The registration checks: the driver registers through the plugin watcher, answers GetInfo and
 * NotifyRegistrationStatus, and serves its endpoint. Returns its registration, or `undefined` (every other
 * check skipped) when it never registered or was refused.
 */
export async function runRegistrationChecks(suite: DraSuiteBase): Promise<DraRegisteredEvent | undefined> {
  const { driver, catalog, results, patienceMs } = suite;
  const outcome = await suite.events.seen(
    (e): e is Extract<SimEvent, { type: 'dra-registered' | 'register-rejected' }> =>
      (e.type === 'dra-registered' && e.driver === driver) ||
      (e.type === 'register-rejected' && e.resource === driver),
    suite.registrationTimeoutMs,
  );
  if (outcome?.type !== 'dra-registered') {
    failRegistration(suite, outcome);
    return undefined;
  }
  const registered = outcome;
  results.pass(
    catalog.registers,
    `${registered.service}${registered.healthService === undefined ? '' : ` + ${registered.healthService}`} at ${registered.endpoint}`,
  );
  await checkRegistrationService(suite, registered);
  const up = await suite.events.seen(
    isEvent('dra-connection', (e) => e.driver === driver && e.connected),
    patienceMs,
  );
  if (up === undefined) {
    results.fail(
      catalog.endpointServing,
      `no connection to ${registered.endpoint} within ${seconds(patienceMs)}; the kubelet cannot call the driver`,
    );
  } else {
    results.pass(
      catalog.endpointServing,
      `connected after ${Math.max(0, Math.round(up.at - registered.at))} ms`,
    );
  }
  return registered;
}
