import { ContainerAllocateResponse } from '@kdp/api';
import { chooseDevices } from './device-choice';
import { goErrorString } from './grpc-util';
import { writeKubeletCheckpoint } from './kubelet-checkpoint';
import type { Admission, AdmitRequest } from './kubelet-sim-types';
import {
  type Allocation,
  type Connection,
  deviceTopology,
  type KubeletState,
  podKey,
  type ResourceRecord,
  stallRpc,
} from './kubelet-state';

/** The message a pod gets when admission fails (`UnexpectedAdmissionError`, P-24). */
function admissionMessage(inner: string): string {
  return `Allocate failed due to ${inner}, which is unexpected`;
}

/** P-29: PreStartContainer with all the container's device IDs of that resource, under the deadline. */
export async function preStartContainer(state: KubeletState, allocation: Allocation): Promise<void> {
  const record = state.resources.get(allocation.resource);
  if (record === undefined || !record.options.preStartRequired) return;
  const target = {
    pod: allocation.pod,
    namespace: allocation.namespace,
    container: allocation.container,
    resource: allocation.resource,
  };
  const fail = (message: string): never => {
    state.emit('admission-failed', { ...target, message });
    throw new Error(message);
  };
  if (record.connection === undefined) fail(`endpoint ${record.socketPath} has been stopped`);
  try {
    await stallRpc(state, 'preStartContainer');
    await record.connection?.endpoint.preStartContainer(allocation.deviceIds, state.preStartTimeoutMs);
  } catch (err) {
    fail(`device plugin PreStartContainer rpc failed with err: ${goErrorString(err)}`);
  }
  state.emit('pre-started', { ...target, deviceIds: [...allocation.deviceIds] });
}

/** P-24: the pre-checks, in the kubelet's order; returns the resource, its connection and its free devices. */
function precheck(
  state: KubeletState,
  resource: string,
  count: number,
): { record: ResourceRecord; connection: Connection; available: Set<string> } {
  const record = state.resources.get(resource);
  if (record === undefined) throw new Error(`cannot allocate unregistered device ${resource}`);
  if (record.healthy.length === 0) {
    throw new Error(`no healthy devices present; cannot allocate unhealthy devices ${resource}`);
  }
  const inUse = new Set(state.allocations.filter((a) => a.resource === resource).flatMap((a) => a.deviceIds));
  const available = new Set(record.healthy.filter((id) => !inUse.has(id)));
  if (available.size < count) {
    throw new Error(
      `requested number of devices unavailable for ${resource}. Requested: ${count}, Available: ${available.size}`,
    );
  }
  const connection = record.connection;
  if (connection === undefined) throw new Error(`endpoint ${record.socketPath} has been stopped`);
  return { record, connection, available };
}

/** P-26: GetPreferredAllocation only when advertised; one container entry; the whole request as size. */
function chooseFor(
  state: KubeletState,
  request: AdmitRequest,
  checked: ReturnType<typeof precheck>,
): Promise<string[]> {
  const { record, connection, available } = checked;
  const askPlugin = async (pool: string[], mustInclude: string[]): Promise<string[]> => {
    try {
      await stallRpc(state, 'getPreferredAllocation');
      return await connection.endpoint.getPreferredAllocation(pool, mustInclude, request.count);
    } catch (err) {
      throw new Error(`device plugin GetPreferredAllocation rpc failed with err: ${goErrorString(err)}`, {
        cause: err,
      });
    }
  };
  return chooseDevices({
    devices: record.devices,
    available,
    count: request.count,
    affinity: request.affinity,
    preferred: record.options.getPreferredAllocationAvailable ? askPlugin : undefined,
  });
}

/** P-23 to P-27, P-30: choose devices, ask the plugin, commit or roll back. */
async function allocate(state: KubeletState, request: AdmitRequest, namespace: string): Promise<Allocation> {
  const { pod, container, resource, count } = request;
  const existing = state.allocations.find(
    (a) => a.pod === pod && a.namespace === namespace && a.container === container && a.resource === resource,
  );
  if (existing !== undefined) {
    // P-25: a container that was admitted before keeps its devices; no new Allocate.
    if (existing.deviceIds.length === count) return existing;
    throw new Error(
      `pod ${JSON.stringify(podKey(namespace, pod))} container ${JSON.stringify(container)} changed request ` +
        `for resource ${JSON.stringify(resource)}: from ${existing.deviceIds.length} to ${count}`,
    );
  }
  const checked = precheck(state, resource, count);
  const chosen = await chooseFor(state, request, checked);

  // P-30: reserve before the RPC, commit on success, roll back on failure.
  const byNuma: Record<string, string[]> = {};
  for (const id of chosen) {
    const nodes = deviceTopology(state, resource, id);
    for (const node of nodes.length > 0 ? nodes.map(String) : ['-1']) (byNuma[node] ??= []).push(id);
  }
  const reserved: Allocation = {
    pod,
    namespace,
    container,
    resource,
    deviceIds: chosen,
    byNuma,
    response: ContainerAllocateResponse.fromPartial({}),
  };
  state.allocations.push(reserved);
  try {
    await stallRpc(state, 'allocate');
    // P-27: one RPC, exactly one container request; at least one response; only [0] is used.
    const responses = await checked.connection.endpoint.allocate(chosen).catch((err: unknown) => {
      throw new Error(goErrorString(err), { cause: err });
    });
    const first = responses[0];
    if (first === undefined) throw new Error('no containers return in allocation response');
    const committed: Allocation = { ...reserved, response: first };
    state.allocations = state.allocations.map((a) => (a === reserved ? committed : a));
    return committed;
  } catch (err) {
    state.allocations = state.allocations.filter((a) => a !== reserved);
    throw err;
  }
}

/** Admits a container: allocates its devices (one pod at a time), checkpoints, then runs PreStartContainer. */
export async function admitContainer(state: KubeletState, request: AdmitRequest): Promise<Admission> {
  const namespace = request.namespace ?? 'default';
  if (!Number.isInteger(request.count) || request.count < 1) {
    throw new RangeError(`admit: count must be a positive integer, got ${request.count}`);
  }
  const target = { pod: request.pod, namespace, container: request.container, resource: request.resource };
  const run = async (): Promise<Allocation> => {
    let allocation: Allocation;
    try {
      allocation = await allocate(state, request, namespace);
    } catch (err) {
      const message = admissionMessage(err instanceof Error ? err.message : String(err));
      state.emit('admission-failed', { ...target, message });
      throw Object.assign(new Error(message, { cause: err }), { reason: 'UnexpectedAdmissionError' });
    }
    writeKubeletCheckpoint(state);
    state.emit('allocated', {
      ...target,
      deviceIds: [...allocation.deviceIds],
      response: allocation.response,
    });
    return allocation;
  };
  // The kubelet admits one pod at a time (its device manager holds a mutex).
  const result = state.admissionChain.then(run, run);
  state.admissionChain = result.catch(() => undefined);
  const allocation = await result;
  // P-29: PreStartContainer before the container starts (admission is followed by the first start).
  await preStartContainer(state, allocation);
  return { deviceIds: [...allocation.deviceIds], response: allocation.response };
}
