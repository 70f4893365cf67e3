import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A running pod's devices of one resource, as the kubelet checkpoints them. */
export interface CheckpointedPod {
  /** `namespace/name`. */
  readonly pod: string;
  /** The resource name (`squat.ai/serial`). */
  readonly resource: string;
  /** The device IDs the pod's container holds. */
  readonly deviceIds: readonly string[];
  /** The NUMA node the kubelet recorded them under (`-1`, the default, for none). */
  readonly numaNode?: number;
}

/**
 * Writes `kubelet_internal_checkpoint` into a kubelet socket directory as a kubelet leaves it after another
 * plugin ran (an image swap on a node with running pods): the pods' devices and each resource's registered IDs.
 */
export function writeKubeletCheckpoint(
  dir: string,
  pods: readonly CheckpointedPod[],
  registered: Readonly<Record<string, readonly string[]>>,
): void {
  const data = {
    PodDeviceEntries: pods.map((pod) => ({
      PodUID: pod.pod,
      ContainerName: 'c',
      ResourceName: pod.resource,
      DeviceIDs: { [String(pod.numaNode ?? -1)]: [...pod.deviceIds] },
      AllocResp: '',
    })),
    RegisteredDevices: registered,
  };
  writeFileSync(join(dir, 'kubelet_internal_checkpoint'), JSON.stringify({ Data: data, Checksum: 0 }));
}
