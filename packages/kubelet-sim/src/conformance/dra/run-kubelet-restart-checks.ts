import type { SlicesDeletedEvent } from '../../dra/dra-events';
import { seconds } from '../check-catalog';
import type { DraSuite } from './dra-suite';
import { describeDevices, deviceKey } from './prepared-devices';
import { isEvent } from './sim-event-recorder';
import { poolsComplete } from './slice-checks';
import { kubeletPrepared, notPrepared, type SuiteClaim } from './suite-claim';
import { waitForSlices } from './wait-for-slices';

/** After the kubelet deleted the node's slices at its restart, the driver publishes complete pools again. */
async function checkRepublish(suite: DraSuite, wiped: SlicesDeletedEvent | undefined): Promise<void> {
  const { catalog, results, patienceMs, publishTimeoutMs } = suite;
  if (suite.devices.length === 0) {
    results.skip(catalog.republish, 'not run: the driver published no device before the restart');
    return;
  }
  if (wiped === undefined) {
    results.skip(
      catalog.republish,
      `not run: the kubelet could not delete the slices of Node ${suite.nodeName} within ${seconds(patienceMs)}`,
    );
    return;
  }
  const again = await waitForSlices(suite.api, suite.nodeName, suite.driver, publishTimeoutMs, suite.signal);
  if (again.slices.length === 0) {
    results.fail(
      catalog.republish,
      `no slice ${seconds(publishTimeoutMs)} after the kubelet deleted ${wiped.count}; the scheduler sees no ` +
        'devices on this node until the driver restarts (watch the slices and publish again)',
    );
  } else if (!poolsComplete(again.slices)) {
    results.fail(
      catalog.republish,
      `${again.slices.length} slice(s), but a pool is incomplete after ${seconds(publishTimeoutMs)}`,
    );
  } else {
    results.pass(catalog.republish, `${again.slices.length} slice(s) after ${again.elapsedMs} ms`);
  }
}

/**
 * The kubelet-restart checks: the kubelet restarts (deleting the node's slices); the driver publishes again,
 * registers again, and the pod's claim is prepared again with the same devices.
 */
export async function runKubeletRestartChecks(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results, patienceMs, driver } = suite;
  const beforeRestart = suite.events.mark();
  await suite.sim.restart();
  const wiped = await suite.events.seen(
    isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
    patienceMs,
    beforeRestart,
  );
  await checkRepublish(suite, wiped);
  const rereg = await suite.events.seen(
    isEvent('dra-registered', (e) => e.driver === driver),
    patienceMs,
    beforeRestart,
  );
  if (rereg !== undefined) suite.registered = rereg;
  const prepared = claim.prepared;
  if (prepared === undefined) {
    results.skip(catalog.prepareAfterKubeletRestart, notPrepared(claim));
    return;
  }
  const again = await kubeletPrepared(suite, claim, beforeRestart, suite.registrationTimeoutMs + patienceMs);
  if ('problem' in again) {
    results.fail(
      catalog.prepareAfterKubeletRestart,
      rereg === undefined
        ? 'the driver did not register again after the kubelet restart'
        : `the pod's claim was not prepared again: ${again.problem}`,
    );
  } else if (deviceKey(again.devices) !== deviceKey(prepared)) {
    results.fail(
      catalog.prepareAfterKubeletRestart,
      `before ${describeDevices(prepared)}, after ${describeDevices(again.devices)}`,
    );
  } else {
    results.pass(catalog.prepareAfterKubeletRestart, describeDevices(again.devices));
  }
}
