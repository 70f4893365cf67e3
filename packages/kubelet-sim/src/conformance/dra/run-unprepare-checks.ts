import { randomBytes, randomUUID } from 'node:crypto';
import { goErrorString } from '../../grpc-util';
import { connectRegisteredPlugin, type DraSuite } from './dra-suite';
import { notPrepared, type SuiteClaim } from './suite-claim';

/** NodeUnprepareResources for claims already unprepared or never known succeeds for each. */
async function checkUnprepareUnknown(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results } = suite;
  const unknown = [
    ...(claim.prepared === undefined ? [] : [claim.ref]),
    {
      namespace: suite.namespace,
      name: `kubelet-sim-unknown-${randomBytes(4).toString('hex')}`,
      uid: randomUUID(),
    },
  ];
  const direct = connectRegisteredPlugin(suite);
  try {
    const response = await direct.unprepare(unknown, suite.callTimeoutMs);
    const problems = unknown.flatMap((c) => {
      const result = response.claims[c.uid];
      if (result === undefined) return [`no result for ${c.name}`];
      return result.error === '' ? [] : [`${c.name}: ${result.error}`];
    });
    if (problems.length === 0) results.pass(catalog.unprepareUnknown, unknown.map((c) => c.name).join(', '));
    else
      results.fail(
        catalog.unprepareUnknown,
        `${problems.join('; ')}; a claim may be gone (or unprepared) before the kubelet unprepares it`,
      );
  } catch (err) {
    results.fail(catalog.unprepareUnknown, `the call failed: ${goErrorString(err)}`);
  } finally {
    direct.close();
  }
}

/** The unprepare checks: the kubelet unprepares the deleted pod's claim; unknown claims unprepare cleanly. */
export async function runUnprepareChecks(suite: DraSuite, claim: SuiteClaim): Promise<void> {
  const { catalog, results } = suite;
  if (claim.prepared === undefined) {
    results.skip(catalog.unprepare, notPrepared(claim));
  } else {
    try {
      await suite.sim.deletePod(claim.pod.name, claim.pod.namespace);
      results.pass(catalog.unprepare, claim.name);
    } catch (err) {
      results.fail(catalog.unprepare, `${goErrorString(err)}; the kubelet retries it until it succeeds`);
    }
  }
  await checkUnprepareUnknown(suite, claim);
}
