import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';
import { rdmaCharNodes, type RdmaDeviceSpec } from './rdma-machine';

/**
 * Takes an RDMA device added with `addRdmaDevice` off the fixture as a hot-unplug or a driver unbind does: first
 * its entries in the RDMA classes (the kernel), then its /dev/infiniband nodes (udev). Its PCI function stays.
 */
export function removeRdmaDevice(fixture: SysfsFixture, spec: RdmaDeviceSpec): void {
  const nodes = rdmaCharNodes(spec);
  rmSync(join(fixture.root, 'class/infiniband', spec.name), { force: true });
  for (const node of nodes) rmSync(join(fixture.root, 'class', node.className, node.name), { force: true });
  for (const node of nodes) fixture.removeDevNode(`/dev/infiniband/${node.name}`);
}

/** Brings back a device taken off by {@link removeRdmaDevice}: its class entries, then its /dev nodes. */
export function restoreRdmaDevice(fixture: SysfsFixture, spec: RdmaDeviceSpec): void {
  const pciDir = fixture.pciDir(spec.pci.address);
  const nodes = rdmaCharNodes(spec);
  fixture.linkTo(`class/infiniband/${spec.name}`, `${pciDir}/infiniband/${spec.name}`);
  for (const node of nodes) {
    fixture.linkTo(`class/${node.className}/${node.name}`, `${pciDir}/${node.className}/${node.name}`);
  }
  for (const node of nodes) fixture.addDevNode(`/dev/infiniband/${node.name}`, node.major, node.minor);
}
