import { goErrorString } from '../../grpc-util';
import type { SimEvent } from '../../sim-events';
import { seconds } from '../check-catalog';
import { connectRegisteredPlugin, type DraSuite } from './dra-suite';
import { describeDevices, deviceKey, devicesFromResponse } from './prepared-devices';
import { preparedWithCallback, type SuiteClaim } from './suite-claim';

/**
 * The plugin-restart check (when the suite can restart the driver): after its restart the driver prepares
 * the claim again with the same devices, from its checkpoint.
 */
export async function runPluginRestartChecks(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results, patienceMs, callTimeoutMs, driver } = suite;
  const ready = preparedWithCallback(suite, claim, catalog.pluginRestart, {
    name: 'restartPlugin',
    action: 'restart the driver',
  });
  if (ready === undefined) return;
  const { prepared } = ready;
  const beforePluginRestart = suite.events.mark();
  await ready.run();
  const back = await suite.events.seen(
    (e): e is Extract<SimEvent, { type: 'dra-registered' | 'dra-connection' }> =>
      (e.type === 'dra-registered' && e.driver === driver) ||
      (e.type === 'dra-connection' && e.driver === driver && e.connected),
    patienceMs,
    beforePluginRestart,
  );
  if (back?.type === 'dra-registered') suite.registered = back;
  const direct = connectRegisteredPlugin(suite);
  try {
    // A driver that neither registered again nor reconnected may still serve its old endpoint.
    await direct.ready(back === undefined ? patienceMs : callTimeoutMs);
    const response = await direct.prepare([claim.ref], callTimeoutMs);
    const result = response.claims[claim.ref.uid];
    const after = devicesFromResponse(driver, result);
    if (result === undefined || result.error !== '')
      results.fail(
        catalog.pluginRestart,
        `prepare after the restart: ${result === undefined ? 'no result for the claim' : result.error}; keep a checkpoint`,
      );
    else if (deviceKey(after) !== deviceKey(prepared))
      results.fail(
        catalog.pluginRestart,
        `before ${describeDevices(prepared)}, after ${describeDevices(after)}; keep a checkpoint`,
      );
    else results.pass(catalog.pluginRestart, describeDevices(after));
  } catch (err) {
    results.fail(
      catalog.pluginRestart,
      `prepare after the restart failed: ${goErrorString(err)}` +
        `${back === undefined ? ` (it neither registered nor reconnected within ${seconds(patienceMs)})` : ''}`,
    );
  } finally {
    direct.close();
  }
}
