import { randomUUID } from 'node:crypto';
import type { PreparedDevice } from '../../dra/dra-events';
import { goErrorString } from '../../grpc-util';
import { checkCdiIds, checkCdiSpec } from './cdi-checks';
import { connectRegisteredPlugin, type DraSuite } from './dra-suite';
import { describeDevices, deviceKey, devicesFromResponse } from './prepared-devices';
import type { DraPluginConnection } from './registration-checks';
import { notPrepared, type SuiteClaim } from './suite-claim';

/** The kubelet prepares the pod's claim: the driver must prepare exactly the allocated device. */
async function checkKubeletPrepare(
  suite: DraSuite,
  claim: SuiteClaim,
  target: NonNullable<SuiteClaim['target']>,
): Promise<void> {
  const { catalog, results } = suite;
  try {
    const [result] = await suite.sim.prepareClaims(claim.pod, [claim.name]);
    const prepared = [...(result?.devices ?? [])];
    claim.prepared = prepared;
    const allocated = prepared.filter((d) => d.poolName === target.pool && d.deviceName === target.device);
    if (allocated.length === 0) {
      results.fail(
        catalog.prepare,
        `claim ${claim.name} is allocated ${target.pool}/${target.device}, but the driver prepared ${describeDevices(prepared)}`,
      );
    } else if (allocated.length !== prepared.length) {
      results.fail(
        catalog.prepare,
        `the driver also prepared devices not allocated to the claim: ${describeDevices(prepared)}`,
      );
    } else {
      results.pass(catalog.prepare, `${claim.name}: ${describeDevices(prepared)}`);
    }
  } catch (err) {
    results.fail(
      catalog.prepare,
      `${goErrorString(err)}; the kubelet keeps the pod in ContainerCreating and retries`,
    );
  }
}

/** A second NodePrepareResources for the same claim returns the same devices. */
async function checkIdempotent(
  suite: DraSuite,
  direct: DraPluginConnection,
  claim: SuiteClaim,
  prepared: readonly PreparedDevice[],
): Promise<void> {
  const { catalog, results } = suite;
  try {
    const again = await direct.prepare([claim.ref], suite.callTimeoutMs);
    const result = again.claims[claim.ref.uid];
    const second = devicesFromResponse(suite.driver, result);
    if (result === undefined)
      results.fail(catalog.prepareIdempotent, `the second call did not answer claim ${claim.ref.uid}`);
    else if (result.error !== '')
      results.fail(catalog.prepareIdempotent, `the second call failed for the claim: ${result.error}`);
    else if (deviceKey(second) !== deviceKey(prepared))
      results.fail(
        catalog.prepareIdempotent,
        `first ${describeDevices(prepared)}, then ${describeDevices(second)}; the kubelet calls prepare again after every restart`,
      );
    else results.pass(catalog.prepareIdempotent, describeDevices(second));
  } catch (err) {
    results.fail(catalog.prepareIdempotent, `the second call failed: ${goErrorString(err)}`);
  }
}

/** A claim with the right name and a wrong UID gets a per-claim error; the correct claim beside it succeeds. */
async function checkWrongUid(suite: DraSuite, direct: DraPluginConnection, claim: SuiteClaim): Promise<void> {
  const { catalog, results } = suite;
  const claimRef = claim.ref;
  const wrong = { ...claimRef, uid: randomUUID() };
  try {
    const response = await direct.prepare([claimRef, wrong], suite.callTimeoutMs);
    const good = response.claims[claimRef.uid];
    const bad = response.claims[wrong.uid];
    if (bad === undefined) results.fail(catalog.wrongUid, `no result for the claim with UID ${wrong.uid}`);
    else if (bad.error === '')
      results.fail(
        catalog.wrongUid,
        `claim ${claim.name} with UID ${wrong.uid} (the object's is ${claimRef.uid}) was prepared: ` +
          `${describeDevices(devicesFromResponse(suite.driver, bad))}; a deleted and re-created claim would get its predecessor's devices`,
      );
    else if (good === undefined || good.error !== '')
      results.fail(
        catalog.wrongUid,
        `the correct claim beside it ${good === undefined ? 'got no result' : `failed: ${good.error}`}`,
      );
    else results.pass(catalog.wrongUid, `per-claim error: ${bad.error}`);
  } catch (err) {
    results.fail(
      catalog.wrongUid,
      `the whole call failed: ${goErrorString(err)}; one bad claim must not fail the others of the call`,
    );
  }
}

/**
 * The prepare checks: the kubelet prepares the suite's claim, the CDI IDs and spec files are right, and the
 * driver answers a repeated prepare and a wrong claim UID correctly. Sets `claim.prepared`.
 */
export async function runPrepareChecks(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results } = suite;
  if (claim.setupProblem === undefined && claim.target !== undefined) {
    await checkKubeletPrepare(suite, claim, claim.target);
  }
  if (claim.setupProblem !== undefined) results.skip(catalog.prepare, claim.setupProblem);
  const prepared = claim.prepared;
  if (prepared === undefined) {
    for (const d of [catalog.cdiIds, catalog.cdiSpec, catalog.prepareIdempotent, catalog.wrongUid])
      results.skip(d, notPrepared(claim));
    return;
  }
  results.add(checkCdiIds(prepared));
  results.add(checkCdiSpec(prepared, suite.options.cdiDir));
  const direct = connectRegisteredPlugin(suite);
  try {
    await checkIdempotent(suite, direct, claim, prepared);
    await checkWrongUid(suite, direct, claim);
  } finally {
    direct.close();
  }
}
