import type { DiscoveredDevice, DiscoveredResource, DiscoverResult } from '@kdp/core';
import { toPluginDevices } from './allocate/gpu-devices';
import { scanGpus, type ScanRoots } from './discovery/scan-gpus';
import type { GpuConfig } from './gpu-config';
import { createGpuTracker } from './health/gpu-tracker';

/**
 * The `discover` command: one scan, grouped by resource (replicas expanded). A GPU with a missing or wrong
 * device node is listed in `excluded` with the reason, like one without its driver.
 */
export async function discoverGpus(roots: ScanRoots, config: GpuConfig): Promise<DiscoverResult> {
  const scan = await scanGpus(roots);
  const excluded = [...scan.excluded];
  for (const gpu of scan.gpus) {
    if (gpu.problems.length > 0)
      excluded.push({ path: gpu.sysfsPath, reason: `${gpu.id}: ${gpu.problems.join('; ')}` });
  }
  const { gpus } = createGpuTracker().update(scan);
  const byResource = new Map<string, DiscoveredDevice[]>();
  for (const device of toPluginDevices(gpus, config)) {
    const payload = device.payload;
    if (payload === undefined) continue;
    const { gpu, resource, replica } = payload;
    const list = byResource.get(resource) ?? [];
    const paths = [...new Set([...gpu.sharedNodes, ...gpu.deviceNodes])];
    list.push({
      id: device.id,
      health: device.health,
      numaNodes: [...gpu.numaNodes],
      pciAddress: gpu.pciAddress,
      deviceSpecs: paths.map((path) => ({ containerPath: path, hostPath: path, permissions: 'rw' })),
      attributes: { ...gpu.attributes, ...(replica !== undefined ? { replica: String(replica) } : {}) },
    });
    byResource.set(resource, list);
  }
  const resources: DiscoveredResource[] = [...byResource.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resourceName, devices]) => ({ resourceName, devices }));
  return { resources, excluded, warnings: scan.warnings };
}
