import { createDraDriverRegistry } from './dra-driver-registry';
import { createDraHealthTracker } from './dra-health-tracker';
import { restoreDraManagerCheckpoint, writeDraManagerCheckpoint } from './dra-manager-checkpoint';
import { createDraManagerState, type DraManagerState, type PodRecord } from './dra-manager-state';
import type { DraManager, DraManagerOptions, DraPod, DraClaimRef, DraState } from './dra-manager-types';
import { draPodSnapshots } from './dra-pod-resources';
import { deleteDraPod, syncDraPod } from './dra-pod-sync';
import { reconcileDraPods } from './dra-reconcile';
import { createDraSliceWiper } from './dra-slice-wiper';

export type {
  DraClaimRef,
  DraEndpointState,
  DraManager,
  DraManagerOptions,
  DraPod,
  DraPodSnapshot,
  DraState,
} from './dra-manager-types';

/** The pod record of a `prepareClaims` call: one container `main` using every claim unless containers are given. */
function podRecord(pod: DraPod, refs: readonly DraClaimRef[]): PodRecord {
  const claimNames = refs.map((r) => (typeof r === 'string' ? r : r.metadata.name));
  return {
    name: pod.name,
    namespace: pod.namespace ?? 'default',
    uid: pod.uid,
    containers: (pod.containers ?? [{ name: 'main', claims: claimNames }]).map((c) => ({
      name: c.name,
      claims: [...c.claims],
    })),
    claims: [...refs],
  };
}

/** The drivers with their endpoints, and the claim cache. */
function draState(state: DraManagerState): DraState {
  return {
    drivers: [...state.drivers].map(([driver, endpoints]) => ({
      driver,
      endpoints: endpoints.map((e) => ({
        endpoint: e.endpoint,
        service: e.service,
        ...(e.healthService === undefined ? {} : { healthService: e.healthService }),
        connected: e.connected,
      })),
    })),
    claims: [...state.claims.values()].map((info) => ({
      name: info.name,
      namespace: info.namespace,
      uid: info.uid,
      podUids: [...info.podUids],
      prepared: info.prepared,
      devices: [...info.drivers.values()].flat(),
    })),
  };
}

/** Creates the DRA manager (not started). */
export function createDraManager(options: DraManagerOptions): DraManager {
  const state = createDraManagerState(options);
  const health = createDraHealthTracker({
    emit: options.emit,
    clock: options.clock,
    healthRetryMs: options.healthRetryMs,
    generation: () => state.generation,
    isCurrent: (endpoint, generation) =>
      generation === state.generation && state.bySocket.get(endpoint.socketPath) === endpoint,
  });
  const slices = createDraSliceWiper({ state });
  const registry = createDraDriverRegistry({ state, health, slices });

  let reconcileTimer: NodeJS.Timeout | undefined;
  // Stopping drops every driver, claim, pod and timer; work begun before it sees the generation change.
  const stop = (): void => {
    clearInterval(reconcileTimer);
    reconcileTimer = undefined;
    state.generation += 1;
    state.stopped = true;
    registry.clear();
    health.clearAll();
    for (const timer of state.pendingWipes.values()) options.clock.clearTimeout(timer);
    state.pendingWipes.clear();
    for (const pod of state.pods.values()) if (pod.retry !== undefined) clearTimeout(pod.retry);
    state.claims = new Map();
    state.pods = new Map();
  };

  return {
    registerPlugin: registry.register,
    onSocketRemoved: registry.removeSocket,
    prepareClaims: (pod, refs) => {
      const record = podRecord(pod, refs);
      const previous = state.pods.get(pod.uid);
      if (previous?.retry !== undefined) clearTimeout(previous.retry);
      state.pods.set(pod.uid, record);
      writeDraManagerCheckpoint(state);
      return syncDraPod(state, record);
    },
    deletePod: (name, namespace) => {
      const pod = [...state.pods.values()].find((p) => p.name === name && p.namespace === namespace);
      if (pod === undefined) return Promise.reject(new Error(`kubelet-sim: no DRA pod ${namespace}/${name}`));
      return deleteDraPod(state, pod);
    },
    state: () => draState(state),
    health: health.health,
    podSnapshots: () => draPodSnapshots(state),
    start: () => {
      // Pods given while stopped (the kubelet restarting) are kept beside those of the checkpoint.
      const arrived = state.stopped ? [...state.pods.values()] : [];
      stop();
      restoreDraManagerCheckpoint(state);
      for (const pod of arrived) state.pods.set(pod.uid, pod);
      state.stopped = false;
      writeDraManagerCheckpoint(state);
      // At start the kubelet deletes every ResourceSlice of its node: drivers must publish again.
      slices.wipe(undefined, 'kubelet-start');
      // Pods deleted while the kubelet was down are unprepared rather than prepared again.
      const inactive = new Set(reconcileDraPods(state));
      for (const pod of state.pods.values())
        if (!inactive.has(pod)) void syncDraPod(state, pod).catch(() => undefined);
      if (options.activePods !== undefined) {
        reconcileTimer = setInterval(() => reconcileDraPods(state), options.reconcilePeriodMs ?? 60_000);
        reconcileTimer.unref();
      }
    },
    reconcile: () => void reconcileDraPods(state),
    stop,
  };
}
