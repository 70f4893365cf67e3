import { randomBytes } from 'node:crypto';
import type { KubeObject, ObjectStore } from '../../api-server/object-store';
import type { NodeKubelet } from '../../playground/node-kubelet';
import type { PodObject } from '../../playground/pod-object';
import type { CheckDefinition } from '../check-catalog';
import type { DraSuite } from './dra-suite';
import {
  claimDevicesSpec,
  deviceClassObject,
  podObject,
  type SchedulerCheckRequest,
} from './scheduler-objects';
import { isEvent } from './sim-event-recorder';

interface ClaimStatus {
  metadata: { name?: string; uid?: string };
  status?: {
    allocation?: { devices?: { results?: Array<{ request: string; device: string; pool: string }> } };
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What the scheduler checks do with the API server: objects they create and remove, pods they wait for. */
export interface SchedulerCheckContext {
  /** A random suffix of this run's object names. */
  readonly suffix: string;
  readonly timeoutMs: number;
  /** Creates an object in the suite's namespace, removed by {@link SchedulerCheckContext.release}. */
  create(resource: string, object: KubeObject): KubeObject;
  /** Creates a claim `<name>-<suffix>` of the driver's DeviceClass (with `spec.devices.config`); returns its name. */
  claim(name: string, requests: readonly SchedulerCheckRequest[], config?: readonly object[]): string;
  /** Waits until the pod is Running or unschedulable (or the time is up); the pod then. */
  settle(name: string): Promise<PodObject | undefined>;
  /** The pod's phase and its first False condition, for a failure. */
  problem(pod: PodObject | undefined): string;
  /**
   * Runs a pod of `claimName` whose containers name `[request, allocated request]`: each container's CDI IDs
   * must be exactly those the driver prepared for its request's devices. A description, or undefined after
   * failing `definition`.
   */
  runPod(
    definition: CheckDefinition,
    podName: string,
    claimName: string,
    containers: ReadonlyArray<readonly [string, string]>,
  ): Promise<string | undefined>;
  /** Deletes what the last check created (pods first) and waits until it is gone: its devices are free again. */
  release(): Promise<void>;
  /** Releases and deletes the DeviceClass if it created it. */
  close(): Promise<void>;
}

/** Creates the context of the scheduler checks (and the driver's DeviceClass, unless one exists). */
export function createSchedulerCheckContext(
  suite: DraSuite,
  store: ObjectStore,
  kubelet: NodeKubelet,
): SchedulerCheckContext {
  const { results, namespace, driver } = suite;
  const suffix = randomBytes(3).toString('hex');
  const timeoutMs = suite.patienceMs;
  const created: Array<[string, string]> = [];
  let ownClass = false;
  try {
    store.create('deviceclasses', deviceClassObject(driver));
    ownClass = true;
  } catch {
    // A DeviceClass of this name exists already (a rerun against the same store): it is used as it is.
  }
  const exists = (resource: string, name: string): boolean =>
    store.list(resource, { namespace }).items.some((o) => o.metadata.name === name);
  /** Deletes what the last check created (pods first) and waits until it is gone: its devices are free again. */
  const release = async (): Promise<void> => {
    const mine = created.splice(0).reverse();
    for (const [resource, name] of mine) {
      try {
        store.delete(resource, name, { namespace });
      } catch {
        // Gone already (a template claim removed with its pod).
      }
    }
    const deadline = Date.now() + timeoutMs;
    while (mine.some(([resource, name]) => exists(resource, name)) && Date.now() < deadline) await pause(50);
  };
  const create = (resource: string, object: KubeObject): KubeObject => {
    const made = store.create(resource, object, namespace);
    created.push([resource, made.metadata.name ?? '']);
    return made;
  };
  const claim = (
    name: string,
    requests: readonly SchedulerCheckRequest[],
    config?: readonly object[],
  ): string => {
    create('resourceclaims', {
      metadata: { name: `${name}-${suffix}` },
      spec: claimDevicesSpec(driver, requests, config),
    } as KubeObject);
    return `${name}-${suffix}`;
  };
  const getPod = (name: string): PodObject | undefined => {
    try {
      return store.get('pods', name, namespace) as PodObject;
    } catch {
      return undefined;
    }
  };
  /** Waits until the pod is Running or the scheduler marked it unschedulable; undefined on timeout. */
  const settle = async (name: string): Promise<PodObject | undefined> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const pod = getPod(name);
      const unschedulable = pod?.status?.conditions?.some(
        (c) => c.type === 'PodScheduled' && c.status === 'False',
      );
      if (pod?.status?.phase === 'Running' || unschedulable === true) return pod;
      await pause(50);
    }
    return getPod(name);
  };
  const problem = (pod: PodObject | undefined): string => {
    const cond = pod?.status?.conditions?.find((c) => c.status === 'False');
    const failed = suite.events.recorded
      .filter(isEvent('dra-prepare-failed', (e) => e.podUid === pod?.metadata.uid))
      .pop();
    return [
      `pod phase ${pod?.status?.phase ?? 'unset'}`,
      ...(cond === undefined ? [] : [`${cond.type} ${cond.reason ?? ''}: ${cond.message ?? ''}`]),
      ...(failed === undefined ? [] : [`the last prepare failed: ${failed.message}`]),
    ].join(', ');
  };

  const resultsOf = (claimName: string) =>
    (store.get('resourceclaims', claimName, namespace) as ClaimStatus).status?.allocation?.devices?.results ??
    [];
  /** Runs a pod; each container's CDI IDs must be exactly its request's devices' (`<uid>-<device>`). */
  const runPod = async (
    definition: CheckDefinition,
    podName: string,
    claimName: string,
    containers: ReadonlyArray<readonly [string, string]>,
  ): Promise<string | undefined> => {
    create(
      'pods',
      podObject(
        podName,
        { resourceClaimName: claimName },
        containers.map(([request]) => request),
      ),
    );
    const pod = await settle(podName);
    if (pod?.status?.phase !== 'Running') {
      results.fail(definition, `${problem(pod)}`);
      return undefined;
    }
    const got = kubelet.containerDevices(namespace, podName) ?? [];
    const allocated = resultsOf(claimName);
    const prepared = suite.events.recorded
      .filter(isEvent('dra-prepared', (e) => e.podUid === pod.metadata.uid))
      .flatMap((e) => e.claims.flatMap((c) => c.devices));
    const described: string[] = [];
    for (const [request, allocatedRequest] of containers) {
      const devices = allocated.filter((r) => r.request === allocatedRequest);
      const expected = prepared
        .filter((d) => devices.some((r) => r.pool === d.poolName && r.device === d.deviceName))
        .flatMap((d) => d.cdiDeviceIds);
      const ids = got.find((c) => c.name === request)?.cdiDevices ?? [];
      if (expected.length === 0 || ids.join(',') !== expected.join(',')) {
        results.fail(
          definition,
          `container ${request} got CDI devices [${ids.join(', ')}]; the driver prepared [${expected.join(', ')}] ` +
            `for ${allocatedRequest} (${devices.map((r) => `${r.pool}/${r.device}`).join(', ')})`,
        );
        return undefined;
      }
      described.push(`${request}: ${ids.join(', ')}`);
    }
    return described.join('; ');
  };
  return {
    suffix,
    timeoutMs,
    create,
    claim,
    settle,
    problem,
    runPod,
    release,
    async close() {
      await release();
      if (ownClass) store.delete('deviceclasses', driver);
    },
  };
}
