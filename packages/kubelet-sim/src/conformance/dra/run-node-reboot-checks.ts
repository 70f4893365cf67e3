import type { PreparedDevice } from '../../dra/dra-events';
import { seconds } from '../check-catalog';
import { cdiDevicesIn, isQualifiedCdiName } from './cdi-checks';
import type { DraSuite } from './dra-suite';
import { describeDevices, deviceKey } from './prepared-devices';
import { isEvent } from './sim-event-recorder';
import { poolsComplete } from './slice-checks';
import { kubeletPrepared, preparedWithCallback, type SuiteClaim } from './suite-claim';
import { waitForSlices } from './wait-for-slices';

/** After the reboot: the driver's way back, as a failure's reason (a string) or a pass's. */
async function afterReboot(
  suite: DraSuite,
  claim: SuiteClaim,
  before: readonly PreparedDevice[],
  beforeBoot: number,
): Promise<string | { passed: string }> {
  const { driver, patienceMs, registrationTimeoutMs, publishTimeoutMs } = suite;
  const back = await suite.events.seen(
    isEvent('dra-registered', (e) => e.driver === driver),
    registrationTimeoutMs,
    beforeBoot,
  );
  if (back === undefined)
    return `the driver did not register within ${seconds(registrationTimeoutMs)} after the reboot`;
  suite.registered = back;
  const wiped = await suite.events.seen(
    isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
    patienceMs,
    beforeBoot,
  );
  if (wiped !== undefined) {
    const slices = await waitForSlices(suite.api, suite.nodeName, driver, publishTimeoutMs, suite.signal);
    if (!poolsComplete(slices.slices))
      return `no complete pool of slices ${seconds(publishTimeoutMs)} after the reboot`;
  }
  const again = await kubeletPrepared(suite, claim, beforeBoot, patienceMs + suite.callTimeoutMs);
  if ('problem' in again) return `the pod's claim was not prepared again after the reboot: ${again.problem}`;
  const after = again.devices;
  if (deviceKey(after) !== deviceKey(before))
    return `before ${describeDevices(before)}, after ${describeDevices(after)}; keep the checkpoint across reboots`;
  const cdiDir = suite.options.cdiDir;
  if (cdiDir === undefined)
    return { passed: `${describeDevices(after)} (no CDI directory given: spec files not looked up)` };
  const defined = cdiDevicesIn(cdiDir);
  const missing = after
    .flatMap((d) => d.cdiDeviceIds)
    .filter((id) => isQualifiedCdiName(id) && !defined.has(id));
  if (missing.length > 0)
    return (
      `prepared ${describeDevices(after)}, but no spec file in ${cdiDir} defines ${missing.join(', ')}: ` +
      'the CDI directory is emptied by a reboot, write the specs of checkpointed claims again'
    );
  return { passed: `${describeDevices(after)}, CDI specs written again` };
}

/**
 * The node-reboot check (when the suite can reboot the node): the kubelet comes up again with its checkpoint;
 * the driver registers, publishes, prepares the claim again with the same devices and writes its CDI specs.
 */
export async function runNodeRebootChecks(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results } = suite;
  const ready = preparedWithCallback(suite, claim, catalog.nodeReboot, {
    name: 'rebootNode',
    action: 'reboot the node',
  });
  if (ready === undefined) return;
  const { prepared } = ready;
  await ready.run();
  // The kubelet comes up with the node: its checkpoint is on disk, so it prepares the pod's claim again.
  const beforeBoot = suite.events.mark();
  await suite.sim.restart();
  const rebooted = await afterReboot(suite, claim, prepared, beforeBoot);
  if (typeof rebooted === 'string') results.fail(catalog.nodeReboot, rebooted);
  else results.pass(catalog.nodeReboot, rebooted.passed);
}
