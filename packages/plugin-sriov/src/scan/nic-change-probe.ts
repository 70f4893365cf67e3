import type { ChangeProbe } from '@kdp/core/plugin';
import type { NicFunction, NodeScan } from './nic-function';
import { RDMA_CHAR_DEVICE_CLASSES } from './read-rdma-char-devices';
import { UEVENT_SEQNUM } from './read-uevent-support';

/**
 * What can change the advertised pools, from the last scan, read on every poll tick instead of a full scan.
 * Always: each SR-IOV PF's `sriov_numvfs`, the `carrier` of the first netdev of every PF and plain function
 * (the health of its VFs; no uevent tells of it) and, while a function has a netdev, /proc/net/route (the
 * default-route exclusion). Where the kernel counts uevents for every device and driver change
 * (`node.uevents`), one read of `kernel/uevent_seqnum` stands for everything else; elsewhere the lists those
 * uevents would tell of: the PCI function list (VFs created or destroyed), the device list of every driver a
 * function was bound to and the `driver` link of every unbound function (bind, unbind, rebind), the netdev
 * list of every PF and plain function (its name is what `pfNames` selects), RDMA devices appearing
 * (`class/infiniband`: `isRdma`) and, once the scan saw some, their character devices (Allocate's device
 * nodes). A VF's own attributes are never read: its netdev decides nothing the kubelet sees, and binding it
 * shows in its driver's list (or the uevent count).
 */
export function nicChangeProbe(node: NodeScan): ChangeProbe {
  const functions: readonly NicFunction[] = [...node.functions, ...node.skippedFunctions];
  const heads = functions.filter((fn) => fn.vf === undefined);
  const read: string[] = [];
  for (const fn of heads) {
    if (fn.sriov !== undefined) read.push(`${fn.sysfsPath}/sriov_numvfs`);
    const first = fn.netdevs[0];
    if (first !== undefined && fn.kind === 'netDevice') read.push(`${fn.sysfsPath}/net/${first}/carrier`);
  }
  const procfs = functions.some((fn) => fn.netdevs.length > 0) ? { procfs: { read: ['net/route'] } } : {};
  if (node.uevents) return { sysfs: { read: [UEVENT_SEQNUM, ...read] }, ...procfs };

  const drivers = [...new Set(functions.flatMap((fn) => (fn.driver === undefined ? [] : [fn.driver])))];
  const list = [
    'bus/pci/devices',
    'class/infiniband',
    ...heads.map((fn) => `${fn.sysfsPath}/net`),
    ...drivers.sort().map((driver) => `bus/pci/drivers/${driver}`),
    ...(node.rdmaCharDevices.size > 0 ? RDMA_CHAR_DEVICE_CLASSES : []),
  ];
  const links = functions.filter((fn) => fn.driver === undefined).map((fn) => `${fn.sysfsPath}/driver`);
  return { sysfs: { list, read, links }, ...procfs };
}
