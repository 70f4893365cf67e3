import type { SysfsFixture } from '@kdp/topology/testing';
import { writeDevNode } from './dev-node';

/** One InfiniBand HCA of the sample node (a ConnectX-6 function with one IB port). */
export interface SampleHca {
  readonly name: string;
  readonly address: string;
  readonly rootPort: string;
  readonly numaNode: number;
  readonly nodeGuid: string;
  /** N of uverbsN, umadN and issmN. */
  readonly index: number;
  readonly netdev: string;
}

/** Two ConnectX-6 HCAs, one per socket. */
export const RDMA_HCAS: readonly SampleHca[] = [
  {
    name: 'mlx5_0',
    address: '0000:5e:00.0',
    rootPort: '0000:5d:00.0',
    numaNode: 0,
    nodeGuid: 'b83f:d203:00a1:5c2e',
    index: 0,
    netdev: 'ib0',
  },
  {
    name: 'mlx5_1',
    address: '0000:d8:00.0',
    rootPort: '0000:d7:00.0',
    numaNode: 1,
    nodeGuid: 'b83f:d203:00a1:7d41',
    index: 1,
    netdev: 'ib1',
  },
];

/**
 * The HCAs as mlx5_core and ib_uverbs/ib_umad show them: PCI function, `class/infiniband/<dev>` with an ACTIVE
 * LinkUp port, `infiniband_verbs/uverbsN`, `infiniband_mad/{umad,issm}N`, the /dev/infiniband nodes and rdma_cm.
 */
export function addRdmaHcas(
  fixture: SysfsFixture,
  rootPort: (address: string, numaNode: number) => void,
): void {
  fixture.write('class/infiniband_verbs/abi_version', '6\n');
  fixture.write('class/infiniband_mad/abi_version', '5\n');
  for (const hca of RDMA_HCAS) {
    rootPort(hca.rootPort, hca.numaNode);
    fixture.addPciDevice({
      address: hca.address,
      parent: hca.rootPort,
      vendor: '0x15b3',
      device: '0x101b',
      class: '0x020700',
      driver: 'mlx5_core',
      numaNode: hca.numaNode,
      iommuGroup: 60 + hca.index,
    });
    fixture.addClassDevice('infiniband', hca.name, {
      pciAddress: hca.address,
      attributes: {
        node_guid: hca.nodeGuid,
        node_type: '1: CA',
        fw_ver: '20.39.1002',
        'ports/1/state': '4: ACTIVE',
        'ports/1/phys_state': '5: LinkUp',
        'ports/1/link_layer': 'InfiniBand',
        'ports/1/rate': '200 Gb/sec (4X HDR)',
      },
    });
    const n = hca.index;
    const classDevice = (className: string, name: string, minor: number, port?: string): void => {
      fixture.addClassDevice(className, name, {
        pciAddress: hca.address,
        dev: `231:${minor}`,
        attributes: { ibdev: hca.name, ...(port !== undefined ? { port } : {}) },
      });
      writeDevNode(fixture.devRoot, `/dev/infiniband/${name}`, 231, minor);
    };
    classDevice('infiniband_verbs', `uverbs${n}`, 192 + n);
    classDevice('infiniband_mad', `umad${n}`, n, '1');
    classDevice('infiniband_mad', `issm${n}`, 64 + n, '1');
    fixture.addClassDevice('net', hca.netdev, {
      pciAddress: hca.address,
      attributes: { type: '32', operstate: 'up', carrier: '1' },
    });
  }
  writeDevNode(fixture.devRoot, '/dev/infiniband/rdma_cm', 10, 58);
}
