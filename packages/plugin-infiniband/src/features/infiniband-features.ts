import { resourceCountLabels, type FeatureLabels, type ResourceSet } from '@kdp/core/plugin';
import type { RdmaPayload } from '../resources/rdma-payload';

/**
 * The InfiniBand plugin's node feature labels: NFD's own `feature.node.kubernetes.io/rdma.capable=true` when a
 * resource holds an RDMA device, and `<resource>.count` (devices advertised: shared slots or exclusive devices).
 */
export function infinibandFeatures(set: ResourceSet): FeatureLabels {
  const rdma = set.resources.some((spec) =>
    spec.devices.some((device) => ((device.payload as RdmaPayload | undefined)?.ibdevs.length ?? 0) > 0),
  );
  return {
    ...(rdma ? { 'feature.node.kubernetes.io/rdma.capable': 'true' } : {}),
    ...resourceCountLabels(set),
  };
}
