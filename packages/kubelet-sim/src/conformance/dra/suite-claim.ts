import { randomBytes, randomUUID } from 'node:crypto';
import type { PreparedClaim, PreparedDevice } from '../../dra/dra-events';
import { goErrorString } from '../../grpc-util';
import type { CheckDefinition } from '../check-catalog';
import { allocateClaim } from './allocate-claim';
import type { DraSuite } from './dra-suite';
import { isEvent } from './sim-event-recorder';
import type { PublishedDevice } from './slice-checks';

/** The ResourceClaim the suite allocates to a pod of its own, and what the kubelet prepared for it. */
export interface SuiteClaim {
  readonly name: string;
  readonly pod: { readonly name: string; readonly namespace: string; readonly uid: string };
  /** The claim as NodePrepareResources names it. */
  readonly ref: { readonly namespace: string; readonly name: string; readonly uid: string };
  /** The published device allocated to it. */
  readonly target: PublishedDevice | undefined;
  /** Why there is no allocated claim, as a skip reason. */
  readonly setupProblem: string | undefined;
  /** The devices the kubelet's prepare returned; absent when it failed or did not run. */
  prepared: PreparedDevice[] | undefined;
}

/** The skip reason of a check that needs the prepared claim. */
export const notPrepared = (claim: SuiteClaim): string => claim.setupProblem ?? 'not run: prepare failed';

/**
 * For a check that needs one of the caller's callbacks (`restartPlugin`, `rebootNode`) and the prepared claim:
 * both, or `undefined` after skipping `definition` for the one missing.
 */
export function preparedWithCallback(
  suite: DraSuite,
  claim: SuiteClaim,
  definition: CheckDefinition,
  callback: { readonly name: 'restartPlugin' | 'rebootNode'; readonly action: string },
): { run: () => Promise<void>; prepared: PreparedDevice[] } | undefined {
  const run = suite.options[callback.name];
  const prepared = claim.prepared;
  if (run === undefined) {
    suite.results.skip(
      definition,
      `not run: no way to ${callback.action} (runDraConformance takes a ${callback.name} callback; the CLI has none)`,
    );
  } else if (prepared === undefined) suite.results.skip(definition, notPrepared(claim));
  // Called as a method of the options, as before.
  else return { run: () => run.call(suite.options), prepared };
  return undefined;
}

/**
 * Creates a ResourceClaim allocated (as the scheduler would) to the first published device and reserved for
 * a new pod; it is deleted when the run ends.
 */
export async function createSuiteClaim(suite: DraSuite): Promise<SuiteClaim> {
  const { api, namespace, driver, nodeName } = suite;
  const target = suite.devices.find((d) => d.device !== '');
  const claimName = `kubelet-sim-check-${randomBytes(4).toString('hex')}`;
  const pod = { name: `${claimName}-pod`, namespace, uid: randomUUID() };
  let uid = '';
  let setupProblem: string | undefined;
  if (target === undefined) {
    setupProblem = 'not run: no published device to allocate';
  } else {
    try {
      const created = await allocateClaim(api, {
        namespace,
        claimName,
        driver,
        nodeName,
        device: target,
        pod,
      });
      uid = created.metadata.uid ?? '';
      suite.onCleanup(() =>
        api.deleteClaim(namespace, created.metadata.name ?? claimName).catch(() => undefined),
      );
    } catch (err) {
      setupProblem = `not run: the suite could not create an allocated ResourceClaim: ${goErrorString(err)}`;
    }
  }
  return {
    name: claimName,
    pod,
    ref: { namespace, name: claimName, uid },
    target,
    setupProblem,
    prepared: undefined,
  };
}

/** The kubelet's own prepare of the pod's claims after event `from`: their devices, or why there are none. */
export async function kubeletPrepared(
  suite: DraSuite,
  claim: SuiteClaim,
  from: number,
  timeoutMs: number,
): Promise<{ devices: PreparedDevice[] } | { problem: string }> {
  const again = await suite.events.seen(
    isEvent('dra-prepared', (e) => e.podUid === claim.pod.uid),
    timeoutMs,
    from,
  );
  if (again !== undefined) return { devices: again.claims.flatMap((c: PreparedClaim) => c.devices) };
  const failed = suite.events.recorded
    .slice(from)
    .filter(isEvent('dra-prepare-failed', (e) => e.podUid === claim.pod.uid))
    .pop();
  return { problem: failed?.message ?? 'no answer' };
}
