import type { ObjectStore } from '../../api-server/object-store';
import type { PodObject } from '../../playground/pod-object';
import type { DraSuite } from './dra-suite';
import type { SchedulerCheckContext } from './scheduler-check-context';
import { checkResult, seconds } from '../check-catalog';
import { podObject } from './scheduler-objects';
import { isEvent } from './sim-event-recorder';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Opaque parameters no driver understands: an unknown apiVersion and kind, an unknown field. */
const unknownOpaqueParameters = {
  apiVersion: 'conformance.kdp.dev/v0',
  kind: 'Unknown',
  unknownField: true,
} as const;

/**
 * The `opaque-config-refused` check: a claim whose `spec.devices.config` carries opaque parameters of the driver
 * that it cannot understand must fail at prepare (the kubelet reports the error; the pod does not run). A pod
 * that runs means the driver silently ignored configuration the user asked for.
 */
export async function checkOpaqueConfigRefused(
  suite: DraSuite,
  store: ObjectStore,
  context: SchedulerCheckContext,
): Promise<void> {
  const { catalog, results, namespace, driver } = suite;
  const definition = catalog.opaqueConfigRefused;
  const { claim, create, problem, suffix, timeoutMs } = context;
  const name = claim(
    'config',
    [{ name: 'main' }],
    [{ requests: [], opaque: { driver, parameters: unknownOpaqueParameters } }],
  );
  const podName = `config-${suffix}`;
  create('pods', podObject(podName, { resourceClaimName: name }, ['main']));
  const deadline = Date.now() + timeoutMs;
  let pod: PodObject | undefined;
  while (Date.now() < deadline) {
    pod = store.list('pods', { namespace }).items.find((p) => p.metadata.name === podName) as
      PodObject | undefined;
    if (pod?.status?.phase === 'Running') break;
    const uid = pod?.metadata.uid;
    const failed = suite.events.recorded.filter(isEvent('dra-prepare-failed', (e) => e.podUid === uid)).pop();
    if (uid !== undefined && failed !== undefined) {
      results.pass(definition, `prepare refused ${unknownOpaqueParameters.kind}: ${failed.message}`);
      return;
    }
    await pause(50);
  }
  results.add(
    checkResult(
      definition,
      'warn',
      pod?.status?.phase === 'Running'
        ? `the pod runs: the driver prepared a claim with opaque configuration ${unknownOpaqueParameters.apiVersion} ` +
            `${unknownOpaqueParameters.kind} it cannot understand, ignoring what the user asked for`
        : `no prepare error within ${seconds(timeoutMs)} (${problem(pod)})`,
    ),
  );
}
