import type { KubeObject, ObjectStore } from '../../api-server/object-store';
import { createNodeKubelet, type NodeKubelet } from '../../playground/node-kubelet';
import { createScheduler } from '../../scheduler/scheduler';
import type { DraSuite } from './dra-suite';
import { checkOpaqueConfigRefused } from './opaque-config-check';
import { createSchedulerCheckContext, type SchedulerCheckContext } from './scheduler-check-context';
import { claimDevicesSpec, podObject } from './scheduler-objects';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A selector on a real attribute of a published device: a string attribute, `name` or `domain/name`. */
function attributeSelector(suite: DraSuite): string | undefined {
  for (const device of suite.devices) {
    for (const [key, value] of Object.entries(device.attributes)) {
      const text = (value as { string?: unknown }).string;
      const slash = key.lastIndexOf('/');
      const domain = slash < 0 ? suite.driver : key.slice(0, slash);
      const name = key.slice(slash + 1);
      if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || typeof text !== 'string' || /["\\]/.test(text)) continue;
      return `device.attributes["${domain}"].${name} == ${JSON.stringify(text)}`;
    }
  }
  return undefined;
}

/**
 * Runs the scheduler-driven checks over the suite's own API server: starts the scheduler (real CEL) and the
 * kubelet's pod side (they would drop the reservation of the suite's hand-allocated claim, whose pod is not in
 * the API server, so they start after the other checks), creates pods the scheduler places, and stops both.
 */
export async function runSchedulerChecks(suite: DraSuite): Promise<void> {
  const { catalog, results } = suite;
  const checks = [
    catalog.schedulerCelSelector,
    catalog.schedulerPrioritizedList,
    catalog.schedulerTwoRequests,
    catalog.schedulerTemplateClaim,
    catalog.schedulerAdminAccess,
    catalog.schedulerFitsNowhere,
    catalog.opaqueConfigRefused,
  ];
  const { store } = suite;
  if (store === undefined) {
    for (const d of checks)
      results.skip(
        d,
        'not run: the API server is an external one (--api-server); the suite runs its scheduler only over its own',
      );
    return;
  }
  const publishedNow = store.list('resourceslices').items.some((item) => {
    const spec = (item as { spec?: { driver?: string; nodeName?: string; devices?: unknown[] } }).spec;
    return (
      spec?.driver === suite.driver && spec.nodeName === suite.nodeName && (spec.devices?.length ?? 0) > 0
    );
  });
  if (suite.devices.length === 0 || !publishedNow) {
    for (const d of checks) results.skip(d, 'not run: the driver publishes no device on this node now');
    return;
  }
  const scheduler = createScheduler({ store });
  const kubelet = createNodeKubelet({
    store,
    sim: suite.sim,
    nodeName: suite.nodeName,
    cdiDir: suite.options.cdiDir ?? '/var/run/cdi',
    devRoot: suite.options.devRoot ?? '/dev',
    retryMs: 200,
    maxRetryMs: 2000,
  });
  try {
    await runPods(suite, store, kubelet);
  } finally {
    kubelet.close();
    scheduler.close();
  }
}

/** The scheduler checks' pods, with the scheduler and the pod side running. */
async function runPods(suite: DraSuite, store: ObjectStore, kubelet: NodeKubelet): Promise<void> {
  const { catalog, results } = suite;
  const context = createSchedulerCheckContext(suite, store, kubelet);
  const { suffix, claim, runPod, release, create, settle, problem } = context;
  const selector = attributeSelector(suite);
  try {
    // A claim with a CEL selector on a real attribute.
    if (selector === undefined)
      results.skip(catalog.schedulerCelSelector, 'not run: no device with a string attribute');
    else {
      const name = claim('cel', [{ name: 'main', selectors: [selector] }]);
      const ok = await runPod(catalog.schedulerCelSelector, `cel-${suffix}`, name, [['main', 'main']]);
      if (ok !== undefined) results.pass(catalog.schedulerCelSelector, `${selector} → ${ok}`);
    }
    await release();
    // A prioritized list: the first subrequest meets nothing; the container names the base request.
    {
      const name = claim('list', [
        {
          name: 'main',
          firstAvailable: [{ name: 'none', selector: 'device.driver == "none.invalid"' }, { name: 'any' }],
        },
      ]);
      const ok = await runPod(catalog.schedulerPrioritizedList, `list-${suffix}`, name, [
        ['main', 'main/any'],
      ]);
      if (ok !== undefined) results.pass(catalog.schedulerPrioritizedList, ok);
    }
    await release();
    // Two containers naming two requests.
    if (suite.devices.length < 2)
      results.skip(catalog.schedulerTwoRequests, 'not run: fewer than two devices published');
    else {
      const name = claim('two', [{ name: 'first' }, { name: 'second' }]);
      const ok = await runPod(catalog.schedulerTwoRequests, `two-${suffix}`, name, [
        ['first', 'first'],
        ['second', 'second'],
      ]);
      if (ok !== undefined) results.pass(catalog.schedulerTwoRequests, ok);
    }
    await release();
    await checkTemplateClaim(suite, store, context);
    await release();
    // Admin access: a device in use may be allocated again for monitoring.
    {
      const name = claim('admin', [{ name: 'main', adminAccess: true }]);
      const ok = await runPod(catalog.schedulerAdminAccess, `admin-${suffix}`, name, [['main', 'main']]);
      if (ok !== undefined) results.pass(catalog.schedulerAdminAccess, ok);
    }
    await release();
    // A claim that fits nowhere.
    {
      const name = claim('nowhere', [{ name: 'main', selectors: ['device.driver == "none.invalid"'] }]);
      create('pods', podObject(`nowhere-${suffix}`, { resourceClaimName: name }, ['main']));
      const pod = await settle(`nowhere-${suffix}`);
      const cond = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
      if (cond?.status === 'False' && cond.reason === 'Unschedulable' && pod?.spec?.nodeName === undefined)
        results.pass(catalog.schedulerFitsNowhere, `Pending, ${cond.reason}: ${cond.message ?? ''}`);
      else results.fail(catalog.schedulerFitsNowhere, problem(pod));
    }
    await release();
    await checkOpaqueConfigRefused(suite, store, context);
  } finally {
    await context.close();
  }
}

/** A ResourceClaimTemplate: the claim is created for the pod, the pod runs, the claim is removed with the pod. */
async function checkTemplateClaim(
  suite: DraSuite,
  store: ObjectStore,
  context: SchedulerCheckContext,
): Promise<void> {
  const { create, settle, problem, suffix, timeoutMs } = context;
  const { catalog, results, namespace, driver } = suite;
  const definition = catalog.schedulerTemplateClaim;
  create('resourceclaimtemplates', {
    metadata: { name: `template-${suffix}` },
    spec: { spec: claimDevicesSpec(driver, [{ name: 'main' }]) },
  } as KubeObject);
  const podName = `template-${suffix}`;
  store.create(
    'pods',
    podObject(podName, { resourceClaimTemplateName: `template-${suffix}` }, ['main']),
    namespace,
  );
  const pod = await settle(podName);
  const claimName = pod?.status?.resourceClaimStatuses?.find((s) => s.name === 'devices')?.resourceClaimName;
  if (pod?.status?.phase !== 'Running' || claimName === undefined) {
    store.delete('pods', podName, { namespace });
    results.fail(definition, problem(pod));
    return;
  }
  store.delete('pods', podName, { namespace });
  const deadline = Date.now() + timeoutMs;
  const exists = (): boolean =>
    store.list('resourceclaims', { namespace }).items.some((c) => c.metadata.name === claimName);
  while (exists() && Date.now() < deadline) await pause(50);
  if (exists()) results.fail(definition, `claim ${claimName} stays after its pod was deleted`);
  else results.pass(definition, `claim ${claimName} created for the pod, which ran, and removed with it`);
}
