import type { PluginDevice } from '@kdp/core';
import type { ResourceSpec } from '@kdp/core/plugin';
import type { GpuConfig } from '../config';
import type { Gpu } from '../scan/gpu';

/** The ID of the one device of a monitoring resource, as Intel's plugin names it. */
export const MONITORING_DEVICE_ID = 'all';

/** The monitoring resource a GPU belongs to: `gpu.intel.com/monitoring`, or per driver with `split`. */
const monitoringResource = (gpu: Gpu, mode: GpuConfig['intel']['monitoringMode']): string =>
  mode === 'single' ? 'gpu.intel.com/monitoring' : `gpu.intel.com/${gpu.kind}_monitoring`;

/**
 * Intel's monitoring resources (`intel.monitoring`, its `-enable-monitoring`): one device `all` per resource holding
 * every Intel GPU of the node, its Allocate the card, render and MEI nodes of them all (no by-path mounts, as
 * Intel's). Never replicated by `sharing`. A GPU with a problem is left out of it until the problem clears; the
 * device is Unhealthy only while none is left.
 */
export function planMonitoring(gpus: readonly Gpu[], config: GpuConfig): ResourceSpec[] {
  if (!config.intel.monitoring) return [];
  const byResource = new Map<string, Gpu[]>();
  for (const gpu of gpus) {
    if (gpu.kind !== 'i915' && gpu.kind !== 'xe') continue;
    const name = monitoringResource(gpu, config.intel.monitoringMode);
    byResource.set(name, [...(byResource.get(name) ?? []), gpu]);
  }
  return [...byResource].map(([name, members]): ResourceSpec => {
    const healthy = members.filter((gpu) => gpu.problems.length === 0);
    const nodes = [...new Set(healthy.flatMap((gpu) => [...gpu.deviceNodes, ...(gpu.meiNodes ?? [])]))];
    const device: PluginDevice = {
      id: MONITORING_DEVICE_ID,
      ...(healthy.length > 0
        ? { health: 'Healthy' }
        : {
            health: 'Unhealthy',
            problem: members.map((gpu) => `${gpu.id}: ${gpu.problems.join('; ')}`).join('; '),
          }),
      numaNodes: [],
      attributes: { gpus: healthy.map((gpu) => gpu.id).join(','), vendor: '0x8086' },
    };
    return {
      name,
      devices: [device],
      allocate: () => ({
        devices: nodes.map((path) => ({ containerPath: path, hostPath: path, permissions: 'rw' })),
        mounts: [],
      }),
    };
  });
}
