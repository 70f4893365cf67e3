import type { ResourceClaimObject } from './dra-api-client';
import { callDraDriver } from './dra-driver-call';
import { draPluginFor } from './dra-driver-registry';
import type { DraClaim, DraEndpoint } from './dra-endpoint';
import type { PreparedClaim } from './dra-events';
import { writeDraManagerCheckpoint } from './dra-manager-checkpoint';
import {
  claimKey,
  type ClaimInfo,
  type DraManagerState,
  type PodRecord,
  preparedClaim,
} from './dra-manager-state';
import type { DraClaimRef } from './dra-manager-types';

interface ResolvedClaim {
  readonly claim: ResourceClaimObject;
  readonly drivers: Map<string, DraEndpoint>;
}

/** A claim of the pod: the object given, or read from the API server as the kubelet does. */
async function fetchClaim(
  state: DraManagerState,
  namespace: string,
  ref: DraClaimRef,
): Promise<ResourceClaimObject> {
  if (typeof ref !== 'string') return ref;
  const { api } = state.options;
  if (api === undefined) {
    throw new Error(
      `fetch ResourceClaim ${ref}: kubelet-sim has no API server (pass dra.apiServer, or the claim object)`,
    );
  }
  try {
    return await api.getClaim(namespace, ref);
  } catch (err) {
    throw new Error(`fetch ResourceClaim ${ref}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** The validation pass, without touching the cache: fetch, ownership, allocation, drivers. */
async function resolveClaims(state: DraManagerState, pod: PodRecord): Promise<ResolvedClaim[]> {
  const resolved: ResolvedClaim[] = [];
  for (const ref of pod.claims) {
    const claim = await fetchClaim(state, pod.namespace, ref);
    const name = claim.metadata.name;
    const reserved = (claim.status?.reservedFor ?? []).some(
      (r) => r.resource === 'pods' && r.uid === pod.uid,
    );
    if (!reserved)
      throw new Error(
        `pod ${pod.name} (${pod.uid}) is not allowed to use ResourceClaim ${name} (${claim.metadata.uid})`,
      );
    if (claim.status?.allocation === undefined) throw new Error(`ResourceClaim ${name}: not allocated`);
    const endpoints = new Map<string, DraEndpoint>();
    for (const result of claim.status.allocation.devices?.results ?? []) {
      if (!endpoints.has(result.driver)) endpoints.set(result.driver, draPluginFor(state, result.driver));
    }
    resolved.push({ claim, drivers: endpoints });
  }
  return resolved;
}

/**
 * Adds the claims and the pod's reference to the cache, checkpointed before any call; returns the pod's
 * claims and, per endpoint, the claims not prepared yet.
 */
function cacheClaims(
  state: DraManagerState,
  pod: PodRecord,
  resolved: readonly ResolvedClaim[],
): { infos: ClaimInfo[]; batches: Map<DraEndpoint, DraClaim[]> } {
  const batches = new Map<DraEndpoint, DraClaim[]>();
  const infos: ClaimInfo[] = [];
  for (const { claim, drivers: endpoints } of resolved) {
    const namespace = claim.metadata.namespace ?? pod.namespace;
    const key = claimKey(namespace, claim.metadata.name);
    let info = state.claims.get(key);
    if (info === undefined) {
      info = {
        uid: claim.metadata.uid,
        name: claim.metadata.name,
        namespace,
        podUids: new Set(),
        drivers: new Map([...endpoints.keys()].map((d) => [d, []])),
        prepared: false,
      };
      state.claims.set(key, info);
    } else if (info.uid !== claim.metadata.uid) {
      throw new Error(
        `old ResourceClaim with same name ${info.name} and different UID ${info.uid} still exists (previous pod force-deleted?!)`,
      );
    }
    info.podUids.add(pod.uid);
    infos.push(info);
    writeDraManagerCheckpoint(state);
    if (info.prepared) continue;
    for (const endpoint of endpoints.values()) {
      batches.set(endpoint, [
        ...(batches.get(endpoint) ?? []),
        { namespace, uid: info.uid, name: info.name },
      ]);
    }
  }
  return { infos, batches };
}

/** One NodePrepareResources to `endpoint` with all its claims; the devices go into the cache. */
async function prepareBatch(state: DraManagerState, endpoint: DraEndpoint, batch: DraClaim[]): Promise<void> {
  const response = await callDraDriver('NodePrepareResources', batch, () =>
    endpoint.prepare(batch, state.options.callTimeoutMs),
  );
  for (const [uid, result] of Object.entries(response.claims)) {
    const requested = batch.find((c) => c.uid === uid);
    if (requested === undefined) continue;
    const info = state.claims.get(claimKey(requested.namespace, requested.name));
    info?.drivers.set(
      endpoint.driver,
      result.devices.map((d) => ({
        driver: endpoint.driver,
        requestNames: [...d.requestNames],
        poolName: d.poolName,
        deviceName: d.deviceName,
        cdiDeviceIds: [...d.cdiDeviceIds],
        ...(d.shareId === undefined ? {} : { shareId: d.shareId }),
      })),
    );
  }
}

/** Prepares a pod's claims: validate, cache, one NodePrepareResources per driver (any failure aborts). */
export async function prepareDraPod(state: DraManagerState, pod: PodRecord): Promise<PreparedClaim[]> {
  const resolved = await resolveClaims(state, pod);
  const { infos, batches } = cacheClaims(state, pod, resolved);
  const calls: Array<{ driver: string; claims: string[] }> = [];
  for (const [endpoint, batch] of batches) {
    calls.push({ driver: endpoint.driver, claims: batch.map((c) => c.name) });
    await prepareBatch(state, endpoint, batch);
  }
  const batchedUids = new Set([...batches.values()].flat().map((c) => c.uid));
  for (const info of infos) if (batchedUids.has(info.uid)) info.prepared = true;
  writeDraManagerCheckpoint(state);
  const prepared = infos.map(preparedClaim);
  state.options.emit('dra-prepared', {
    pod: pod.name,
    namespace: pod.namespace,
    podUid: pod.uid,
    claims: prepared,
    calls,
  });
  return prepared;
}
