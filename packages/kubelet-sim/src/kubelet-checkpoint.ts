import { ContainerAllocateResponse } from '@kdp/api';
import { type PodDeviceEntry, readCheckpoint, writeCheckpoint } from './checkpoint';
import { type KubeletState, podKey, type ResourceRecord } from './kubelet-state';

function decodeResponse(base64: string): ContainerAllocateResponse {
  try {
    return ContainerAllocateResponse.decode(Buffer.from(base64, 'base64'));
  } catch {
    return ContainerAllocateResponse.fromPartial({});
  }
}

/** Writes the allocations and each resource's healthy devices to the checkpoint (P-17, P-31); not once closed. */
export function writeKubeletCheckpoint(state: KubeletState): void {
  if (state.closed) return;
  const entries: PodDeviceEntry[] = state.allocations.map((a) => ({
    PodUID: podKey(a.namespace, a.pod),
    ContainerName: a.container,
    ResourceName: a.resource,
    DeviceIDs: a.byNuma,
    AllocResp: Buffer.from(ContainerAllocateResponse.encode(a.response).finish()).toString('base64'),
  }));
  const registered: Record<string, string[]> = {};
  for (const record of state.resources.values()) registered[record.name] = [...record.healthy];
  try {
    writeCheckpoint(state.checkpointPath, { PodDeviceEntries: entries, RegisteredDevices: registered });
    state.emit('checkpoint-written', { path: state.checkpointPath });
  } catch {
    // The directory was removed under us: the next change writes it again.
  }
}

/**
 * Loads the checkpoint (P-5, P-20): its allocations, and its resources, empty and without a plugin. Returns
 * the resources it added, which the caller marks stopped.
 */
export function restoreKubeletCheckpoint(state: KubeletState): ResourceRecord[] {
  const data = readCheckpoint(state.checkpointPath);
  if (data === undefined) return [];
  const restored = Object.keys(data.RegisteredDevices).map((name): ResourceRecord => ({
    name,
    endpointName: '',
    socketPath: '',
    apiVersion: 'v1beta1',
    options: { preStartRequired: false, getPreferredAllocationAvailable: false },
    devices: [],
    healthy: [],
    unhealthy: [],
  }));
  for (const record of restored) state.resources.set(record.name, record);
  state.allocations = data.PodDeviceEntries.map((entry) => {
    const slash = entry.PodUID.indexOf('/');
    return {
      namespace: slash >= 0 ? entry.PodUID.slice(0, slash) : 'default',
      pod: slash >= 0 ? entry.PodUID.slice(slash + 1) : entry.PodUID,
      container: entry.ContainerName,
      resource: entry.ResourceName,
      deviceIds: [...new Set(Object.values(entry.DeviceIDs).flat())],
      byNuma: entry.DeviceIDs,
      response: decodeResponse(entry.AllocResp),
    };
  });
  return restored;
}
