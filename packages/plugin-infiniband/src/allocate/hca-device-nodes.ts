import type { DeviceNode } from '@kdp/core';
import type { RdmaInventory, RdmaHca, RdmaPort } from '../scan/read-rdma-inventory';

/**
 * The character devices a container needs for these RDMA devices: each one's uverbs, ucm and (for the counted
 * ports) umad and issm nodes, Omni-Path's /dev/hfi1_N, then the shared rdma_cm. Only nodes that exist under the
 * dev root are listed; host paths are /dev/... as on the host, and each appears once.
 */
export function hcaDeviceNodes(
  inventory: Pick<RdmaInventory, 'rdmaCm'>,
  hcas: readonly { readonly hca: RdmaHca; readonly ports: readonly RdmaPort[] }[],
  permissions: string,
): DeviceNode[] {
  const nodes = new Map<string, DeviceNode>();
  for (const { hca, ports } of hcas) {
    const counted = new Set(ports.map((port) => port.number));
    for (const device of hca.charDevices) {
      if (!device.present) continue;
      if (device.port !== undefined && !counted.has(device.port)) continue;
      nodes.set(device.hostPath, { containerPath: device.hostPath, hostPath: device.hostPath, permissions });
    }
  }
  if (inventory.rdmaCm.present) {
    const path = inventory.rdmaCm.hostPath;
    nodes.set(path, { containerPath: path, hostPath: path, permissions });
  }
  return [...nodes.values()];
}
