import { resourceCountLabels, type FeatureLabels, type ResourceSet } from '@kdp/core/plugin';
import type { PooledFunction } from '../resources/assign-pools';

/**
 * The SR-IOV plugin's node feature labels, per pool: `<resource>.count` (functions advertised),
 * `<resource>.vf-count` (of which virtual functions) and `<resource>.pf-count` (physical functions they belong to, or
 * that are pooled themselves): `intel.com/intel_sriov_netdevice.vf-count=8`. sriov-network-device-plugin has none.
 */
export function sriovFeatures(set: ResourceSet): FeatureLabels {
  const labels = resourceCountLabels(set);
  for (const spec of set.resources) {
    const members = spec.devices.flatMap((device) => {
      const member = device.payload as PooledFunction | undefined;
      return member?.fn === undefined ? [] : [member.fn];
    });
    labels[`${spec.name}.vf-count`] = String(members.filter((fn) => fn.vf !== undefined).length);
    labels[`${spec.name}.pf-count`] = String(
      new Set(members.map((fn) => fn.vf?.pfAddress ?? fn.address)).size,
    );
  }
  return labels;
}
