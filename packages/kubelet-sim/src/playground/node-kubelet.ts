import { systemClock, type Clock } from '@kdp/base';
import type { ObjectStore, WatchEvent } from '../api-server/object-store';
import { recordEvent } from '../api-server/record-event';
import type { PreparedClaim } from '../dra/dra-events';
import type { KubeletSim } from '../kubelet-sim-types';
import type { SimEvent } from '../sim-events';
import { ContainerCreateError, type ContainerDevices, resolveContainerDevices } from './container-devices';
import { podClaimNames, type PodObject } from './pod-object';
import { annotateContainerDevices, currentPod, writePodStatus } from './pod-writes';
import { keepNodeRegistered } from './ready-node';

/** Options of {@link createNodeKubelet}. */
export interface NodeKubeletOptions {
  readonly store: ObjectStore;
  /** The simulated kubelet of this node, with DRA on (its DRA manager prepares and unprepares the claims). */
  readonly sim: KubeletSim;
  readonly nodeName: string;
  /** Where the drivers write CDI specs. */
  readonly cdiDir: string;
  /** The directory standing for the node's /dev (device nodes of CDI specs are looked up there). */
  readonly devRoot: string;
  /** Time of statuses and events; default the system clock. */
  readonly clock?: Clock;
  /** First pause before a container whose CDI devices did not apply is created again; doubles up to `maxRetryMs`. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

/** The pod side of one node's kubelet in the playground (it also keeps the node's Node registered and Ready). */
export interface NodeKubelet {
  /** The node it runs for. */
  readonly nodeName: string;
  /** The UIDs of the pods it runs: bound to this node, not deleted, not finished (the kubelet's active pods). */
  activePods(): ReadonlySet<string>;
  /** The containers' devices of a Running pod of this node. */
  containerDevices(namespace: string, name: string): readonly ContainerDevices[] | undefined;
  /** Stops watching; prepared claims stay prepared (as when a kubelet stops). */
  close(): void;
}

interface TrackedPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  /** Whether the DRA manager was given the pod (then it must be told of its deletion). */
  dra: boolean;
  failures: number;
  timer?: NodeJS.Timeout;
  devices?: readonly ContainerDevices[];
}

/** The kubelet's prefix of a failed prepare, which its Event words differently. */
const preparePrefix = 'prepare dynamic resources: ';
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A Warning Event about a pod from the kubelet of `node`, while the pod exists. */
function warnPod(
  store: ObjectStore,
  from: { readonly node: string; readonly clock: Clock },
  tracked: TrackedPod,
  reason: string,
  message: string,
): void {
  if (currentPod(store, tracked.namespace, tracked.name, tracked.uid) === undefined) return;
  const { name, namespace, uid } = tracked;
  recordEvent(
    store,
    {
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid },
      type: 'Warning',
      reason,
      message,
      source: { component: 'kubelet', host: from.node },
    },
    { clock: from.clock },
  );
}

/** Each container with the ResourceClaims it names, for the DRA manager (and so for pod-resources). */
function containerClaims(
  pod: PodObject,
  claimNames: ReadonlyMap<string, string | null>,
): Array<{ name: string; claims: string[] }> {
  return (pod.spec?.containers ?? []).map((c) => ({
    name: c.name,
    claims: [
      ...new Set(
        (c.resources?.claims ?? [])
          .map((ref) => claimNames.get(ref.name))
          .filter((n): n is string => typeof n === 'string'),
      ),
    ],
  }));
}

/**
 * Runs the pod side of a kubelet for `nodeName`: registers its Node (Ready, again if deleted), watches the pods
 * bound to it, prepares their claims through the DRA manager, gives each container the CDI devices of its
 * `resources.claims[].request` (device nodes checked under `devRoot`), and writes the pod's status and devices;
 * unprepares when a pod goes.
 */
export function createNodeKubelet(options: NodeKubeletOptions): NodeKubelet {
  const { store, sim, nodeName } = options;
  const clock = options.clock ?? systemClock;
  const retryMs = options.retryMs ?? 10_000;
  const maxRetryMs = Math.max(retryMs, options.maxRetryMs ?? 300_000);
  const pods = new Map<string, TrackedPod>();
  let closed = false;

  const warn = (tracked: TrackedPod, reason: string, message: string): void =>
    warnPod(store, { node: nodeName, clock }, tracked, reason, message);
  const retryLater = (tracked: TrackedPod, work: () => void): void => {
    const delay = Math.min(retryMs * 2 ** tracked.failures, maxRetryMs);
    tracked.failures += 1;
    clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => {
      delete tracked.timer;
      if (!closed && pods.get(tracked.uid) === tracked) work();
    }, delay);
    tracked.timer.unref();
  };

  /** Creates the containers once the claims are prepared: CDI devices per container, then Running. */
  const startContainers = (tracked: TrackedPod, prepared: readonly PreparedClaim[]): void => {
    const pod = currentPod(store, tracked.namespace, tracked.name, tracked.uid);
    if (pod === undefined || closed) return;
    let devices: ContainerDevices[];
    try {
      devices = resolveContainerDevices({
        pod,
        claimNames: podClaimNames(pod),
        prepared,
        cdiDir: options.cdiDir,
        devRoot: options.devRoot,
      });
    } catch (err) {
      const message = `failed to create containerd container: ${messageOf(err)}`;
      warn(tracked, 'Failed', `Error: ${message}`);
      const container = err instanceof ContainerCreateError ? err.container : '';
      writePodStatus(store, tracked, { state: 'create-failed', container, message }, clock.now());
      retryLater(tracked, () => startContainers(tracked, prepared));
      return;
    }
    tracked.failures = 0;
    tracked.devices = devices;
    annotateContainerDevices(store, tracked, devices);
    writePodStatus(store, tracked, { state: 'running' }, clock.now());
  };

  const failPrepare = (tracked: TrackedPod, message: string): void => {
    const inner = message.startsWith(preparePrefix) ? message.slice(preparePrefix.length) : message;
    warn(tracked, 'FailedPrepareDynamicResources', `Failed to prepare dynamic resources: ${inner}`);
    writePodStatus(store, tracked, { state: 'preparing' }, clock.now());
  };

  /** The first sync of a pod: claims to the DRA manager (which retries a failed prepare itself), or Running. */
  const syncPod = (tracked: TrackedPod): void => {
    const pod = currentPod(store, tracked.namespace, tracked.name, tracked.uid);
    if (pod === undefined || closed) return;
    let claimNames: Map<string, string | null>;
    try {
      claimNames = podClaimNames(pod);
    } catch (err) {
      failPrepare(tracked, messageOf(err));
      retryLater(tracked, () => syncPod(tracked));
      return;
    }
    const names = [...new Set([...claimNames.values()].filter((n): n is string => n !== null))];
    if (names.length === 0) {
      startContainers(tracked, []);
      return;
    }
    tracked.failures = 0;
    tracked.dra = true;
    const containers = containerClaims(pod, claimNames);
    writePodStatus(store, tracked, { state: 'preparing' }, clock.now());
    // The outcome arrives as a dra-prepared or dra-prepare-failed event (also for the manager's retries).
    void sim
      .prepareClaims(
        { name: tracked.name, namespace: tracked.namespace, uid: tracked.uid, containers },
        names,
      )
      .catch(() => undefined);
  };

  const onSimEvent = (event: SimEvent): void => {
    if (event.type !== 'dra-prepared' && event.type !== 'dra-prepare-failed') return;
    const tracked = pods.get(event.podUid);
    if (tracked === undefined || closed) return;
    if (event.type === 'dra-prepared') startContainers(tracked, event.claims);
    else failPrepare(tracked, event.message);
  };

  const onPodEvent = (event: WatchEvent): void => {
    const pod = event.object as PodObject;
    const uid = pod.metadata.uid ?? '';
    const tracked = pods.get(uid);
    if (event.type === 'DELETED') {
      if (tracked === undefined) return;
      clearTimeout(tracked.timer);
      pods.delete(uid);
      if (tracked.dra) void sim.deletePod(tracked.name, tracked.namespace).catch(() => undefined);
      return;
    }
    if ((event.type !== 'ADDED' && event.type !== 'MODIFIED') || tracked !== undefined) return;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const next: TrackedPod = {
      name: pod.metadata.name ?? '',
      namespace: pod.metadata.namespace ?? 'default',
      uid,
      dra: false,
      failures: 0,
    };
    pods.set(uid, next);
    syncPod(next);
  };

  const stopRegistration = keepNodeRegistered(store, nodeName, () => clock.now());
  sim.events.on('event', onSimEvent);
  // Watch events arrive while the store writes: the kubelet acts on them after that write.
  const stopWatch = store.watch('pods', { fieldSelector: `spec.nodeName=${nodeName}` }, (event) =>
    queueMicrotask(() => {
      if (!closed) onPodEvent(event);
    }),
  );

  return {
    nodeName,
    activePods: () => new Set(pods.keys()),
    containerDevices: (namespace, name) =>
      [...pods.values()].find((p) => p.namespace === namespace && p.name === name)?.devices,
    close: () => {
      closed = true;
      stopRegistration();
      stopWatch();
      sim.events.off('event', onSimEvent);
      for (const tracked of pods.values()) clearTimeout(tracked.timer);
    },
  };
}
