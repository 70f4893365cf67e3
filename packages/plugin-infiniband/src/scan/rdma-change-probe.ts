import type { ChangeProbe } from '@kdp/core/plugin';
import { HFI1_NAME, type RdmaInventory } from './read-rdma-inventory';

/** The sysfs classes in which RDMA devices and their character devices appear and vanish. */
export const RDMA_CLASSES: readonly string[] = [
  'class/infiniband',
  'class/infiniband_verbs',
  'class/infiniband_mad',
  'class/infiniband_cm',
];

/**
 * What the runtime checks between two scans of an inventory, so that every change that can reach the kubelet is
 * noticed within one poll interval while nothing is re-read in full: the listings of the RDMA classes (devices
 * and character devices coming and going), each device's interfaces (`device/net`, which `ifNames` selectors
 * match), the `state` and `phys_state` of every port (health), and /dev/infiniband (nodes that appear before its
 * inotify watch is in place). Omni-Path devices add the listing of /dev itself, where `/dev/hfi1_N` lives.
 * Nothing else the scan reads changes without one of these changing too (PCI facts, GUIDs, firmware, link layer).
 */
export function rdmaChangeProbe(inventory: RdmaInventory): ChangeProbe {
  const list = [...RDMA_CLASSES];
  const read: string[] = [];
  for (const hca of inventory.hcas) {
    const dir = `class/infiniband/${hca.name}`;
    list.push(`${dir}/device/net`);
    for (const port of hca.ports) {
      read.push(`${dir}/ports/${port.number}/state`, `${dir}/ports/${port.number}/phys_state`);
    }
  }
  const devfs = ['/dev/infiniband'];
  if (inventory.hcas.some((hca) => HFI1_NAME.test(hca.name))) devfs.push('/dev');
  return { sysfs: { list, read }, devfs: { list: devfs } };
}
