import type { SysfsFixture } from '@kdp/topology/testing';
import { writeDevNode } from './dev-node';

/** The SR-IOV NIC: an Intel E810 PF on socket 0 with 6 VFs, 4 on iavf (kernel netdevs) and 2 on vfio-pci. */
export const SRIOV_NIC = {
  pf: '0000:3b:00.0',
  rootPort: '0000:3a:00.0',
  netdev: 'ens1f0',
  numaNode: 0,
  vfs: ['0000:3b:01.0', '0000:3b:01.1', '0000:3b:01.2', '0000:3b:01.3', '0000:3b:01.4', '0000:3b:01.5'],
  /** VFs 0-3 are bound to iavf, the rest to vfio-pci. */
  kernelVfs: 4,
} as const;

/** The management NIC that holds the default route (never offered, as upstream). */
const MANAGEMENT_NIC = { address: '0000:00:1f.6', netdev: 'eno1' } as const;

/**
 * The PF with carrier, its VFs (drivers, netdevs, IOMMU groups, routing-ID offset/stride), /dev/vfio nodes for
 * the vfio-pci VFs, and a management NIC with the IPv4 default route in /proc/net/route.
 */
export function addSriovNic(
  fixture: SysfsFixture,
  rootPort: (address: string, numaNode: number) => void,
): void {
  const nic = SRIOV_NIC;
  rootPort(nic.rootPort, nic.numaNode);
  fixture.addPciDevice({
    address: nic.pf,
    parent: nic.rootPort,
    vendor: '0x8086',
    device: '0x1593',
    subsystemDevice: '0x0002',
    class: '0x020000',
    revision: '0x02',
    driver: 'ice',
    numaNode: nic.numaNode,
    iommuGroup: 50,
    sriovTotalVfs: 128,
    attributes: { sriov_vf_device: '1889', sriov_offset: '8', sriov_stride: '1' },
  });
  addNetdev(fixture, nic.pf, nic.netdev);
  writeDevNode(fixture.devRoot, '/dev/vfio/vfio', 10, 196);
  nic.vfs.forEach((address, index) => {
    const kernel = index < nic.kernelVfs;
    const iommuGroup = 100 + index;
    fixture.addPciDevice({
      address,
      parent: nic.rootPort,
      vendor: '0x8086',
      device: '0x1889',
      class: '0x020000',
      revision: '0x02',
      driver: kernel ? 'iavf' : 'vfio-pci',
      numaNode: nic.numaNode,
      iommuGroup,
      physfn: nic.pf,
      vfIndex: index,
    });
    if (kernel) addNetdev(fixture, address, `${nic.netdev}v${index}`);
    else writeDevNode(fixture.devRoot, `/dev/vfio/${iommuGroup}`, 243, index);
  });

  fixture.addPciDevice({
    address: MANAGEMENT_NIC.address,
    vendor: '0x8086',
    device: '0x15bb',
    class: '0x020000',
    driver: 'e1000e',
    numaNode: 0,
  });
  addNetdev(fixture, MANAGEMENT_NIC.address, MANAGEMENT_NIC.netdev);
  fixture.writeProc(
    'net/route',
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' +
      `${MANAGEMENT_NIC.netdev}\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n` +
      `${MANAGEMENT_NIC.netdev}\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n`,
  );
}

function addNetdev(fixture: SysfsFixture, address: string, name: string): void {
  fixture.addClassDevice('net', name, {
    pciAddress: address,
    attributes: { type: '1', operstate: 'up', carrier: '1' },
  });
}
