import type { SysfsFixture } from './sysfs-fixture';

/** Addresses of the interesting functions of `addTwoSocketMachine`. */
export interface TwoSocketMachine {
  /** H100 GPUs: two behind one switch on socket 0, one behind a switch on socket 1. */
  readonly gpus: readonly string[];
  /** Intel X710 PF on socket 0 (64 VFs possible, 2 enabled) and its VFs. */
  readonly x710: { readonly pf: string; readonly vfs: readonly string[] };
  /** ConnectX-6 PF on socket 1 (beside GPU 2 under one switch) and its VF. */
  readonly connectx: { readonly pf: string; readonly vfs: readonly string[] };
  /** NVMe drive with numa_node -1 but a local_cpulist that names socket 1 only. */
  readonly nvme: string;
}

/**
 * Builds a 2-socket server: NUMA nodes 0 (CPUs 0-15) and 1 (16-31), memory-only nodes 2 and 3 (CXL/HBM style),
 * a SLIT-like distance table, PCIe switches with GPUs, SR-IOV NICs with VFs, IOMMU groups and bound drivers.
 */
export function addTwoSocketMachine(fixture: SysfsFixture): TwoSocketMachine {
  addNumaNodes(fixture);
  const zero = addSocketZero(fixture);
  const one = addSocketOne(fixture);
  return { gpus: [...zero.gpus, one.gpu], x710: zero.x710, connectx: one.connectx, nvme: one.nvme };
}

/** An Intel PCIe root port (bridge). */
const BRIDGE = { vendor: '0x8086', class: '0x060400', driver: 'pcieport' } as const;
/** A port of a PLX (Broadcom) PCIe switch. */
const PLX = { vendor: '0x10b5', device: '0x8796', class: '0x060400', driver: 'pcieport' } as const;

/** Nodes 0 and 1 with CPUs, 2 and 3 memory-only, their distances, and more nodes possible than online. */
function addNumaNodes(fixture: SysfsFixture): void {
  const distances = [
    [10, 21, 14, 24],
    [21, 10, 24, 14],
    [14, 24, 10, 26],
    [24, 14, 26, 10],
  ];
  const cpus = ['0-15', '16-31', '', ''];
  cpus.forEach((list, id) => {
    fixture.addNumaNode({
      id,
      cpus: list,
      distances: distances[id] as number[],
      memTotalKiB: id < 2 ? 263_921_556 : 134_217_728,
    });
  });
  fixture.setNodeStates({ online: '0-3', possible: '0-7' });
}

/** An H100 bound to nvidia. */
function addGpu(
  fixture: SysfsFixture,
  address: string,
  parent: string,
  numaNode: number,
  iommuGroup: number,
): void {
  fixture.addPciDevice({
    address,
    parent,
    vendor: '0x10de',
    device: '0x2330',
    subsystemVendor: '0x10de',
    subsystemDevice: '0x16c1',
    class: '0x030200',
    revision: '0xa1',
    driver: 'nvidia',
    numaNode,
    iommuGroup,
  });
}

/** Socket 0: two GPUs behind a PLX switch, and an X710 PF with two VFs. */
function addSocketZero(fixture: SysfsFixture): { gpus: readonly string[]; x710: TwoSocketMachine['x710'] } {
  // Host bridge, root port 00:01.0 -> PLX switch (up 01:00.0, down 02:08.0 / 02:10.0) -> 2 GPUs.
  fixture.addPciDevice({
    address: '0000:00:00.0',
    vendor: '0x8086',
    device: '0x09a2',
    class: '0x060000',
    numaNode: 0,
  });
  fixture.addPciDevice({ address: '0000:00:01.0', ...BRIDGE, device: '0x347a', numaNode: 0, iommuGroup: 1 });
  fixture.addPciDevice({
    address: '0000:01:00.0',
    parent: '0000:00:01.0',
    ...PLX,
    numaNode: 0,
    iommuGroup: 2,
  });
  fixture.addPciDevice({
    address: '0000:02:08.0',
    parent: '0000:01:00.0',
    ...PLX,
    numaNode: 0,
    iommuGroup: 3,
  });
  fixture.addPciDevice({
    address: '0000:02:10.0',
    parent: '0000:01:00.0',
    ...PLX,
    numaNode: 0,
    iommuGroup: 4,
  });
  const gpus = ['0000:03:00.0', '0000:04:00.0'] as const;
  addGpu(fixture, gpus[0], '0000:02:08.0', 0, 10);
  addGpu(fixture, gpus[1], '0000:02:10.0', 0, 11);
  // Root port 00:03.0 -> Intel X710 PF with two VFs (iavf).
  fixture.addPciDevice({ address: '0000:00:03.0', ...BRIDGE, device: '0x347b', numaNode: 0, iommuGroup: 5 });
  const x710 = '0000:05:00.0';
  fixture.addPciDevice({
    address: x710,
    parent: '0000:00:03.0',
    vendor: '0x8086',
    device: '0x1572',
    subsystemDevice: '0x0001',
    class: '0x020000',
    revision: '0x02',
    driver: 'i40e',
    numaNode: 0,
    iommuGroup: 12,
    sriovTotalVfs: 64,
    attributes: { sriov_vf_device: '154c', sriov_offset: '16', sriov_stride: '1' },
  });
  const x710Vfs = ['0000:05:02.0', '0000:05:02.1'];
  x710Vfs.forEach((address, index) =>
    fixture.addPciDevice({
      address,
      parent: '0000:00:03.0',
      vendor: '0x8086',
      device: '0x154c',
      class: '0x020000',
      revision: '0x02',
      driver: 'iavf',
      numaNode: 0,
      iommuGroup: 100 + index,
      physfn: x710,
      vfIndex: index,
    }),
  );
  fixture.addClassDevice('net', 'ens1f0', { pciAddress: x710, attributes: { type: '1', operstate: 'up' } });
  return { gpus, x710: { pf: x710, vfs: x710Vfs } };
}

/** Socket 1: a GPU and a ConnectX-6 PF (one VF) behind one switch, and an NVMe drive without a NUMA node. */
function addSocketOne(fixture: SysfsFixture): { gpu: string } & Pick<TwoSocketMachine, 'connectx' | 'nvme'> {
  // Root port 80:01.0 -> switch (up 81:00.0, down 82:08.0 / 82:10.0) -> GPU and ConnectX-6 PF.
  fixture.addPciDevice({ address: '0000:80:01.0', ...BRIDGE, device: '0x347a', numaNode: 1, iommuGroup: 20 });
  fixture.addPciDevice({
    address: '0000:81:00.0',
    parent: '0000:80:01.0',
    ...PLX,
    numaNode: 1,
    iommuGroup: 21,
  });
  fixture.addPciDevice({
    address: '0000:82:08.0',
    parent: '0000:81:00.0',
    ...PLX,
    numaNode: 1,
    iommuGroup: 22,
  });
  fixture.addPciDevice({
    address: '0000:82:10.0',
    parent: '0000:81:00.0',
    ...PLX,
    numaNode: 1,
    iommuGroup: 23,
  });
  const gpu = '0000:83:00.0';
  addGpu(fixture, gpu, '0000:82:08.0', 1, 30);
  const connectx = '0000:84:00.0';
  fixture.addPciDevice({
    address: connectx,
    parent: '0000:82:10.0',
    vendor: '0x15b3',
    device: '0x101b',
    class: '0x020700',
    driver: 'mlx5_core',
    numaNode: 1,
    iommuGroup: 31,
    sriovTotalVfs: 8,
  });
  fixture.addPciDevice({
    address: '0000:84:00.2',
    parent: '0000:82:10.0',
    vendor: '0x15b3',
    device: '0x101c',
    class: '0x020700',
    driver: 'mlx5_core',
    numaNode: 1,
    iommuGroup: 32,
    physfn: connectx,
    vfIndex: 0,
  });
  fixture.addClassDevice('infiniband', 'mlx5_0', {
    pciAddress: connectx,
    attributes: { node_type: '1: CA', 'ports/1/state': '4: ACTIVE', 'ports/1/link_layer': 'InfiniBand' },
  });
  // Root port 80:03.0 -> NVMe whose firmware left numa_node at -1.
  fixture.addPciDevice({ address: '0000:80:03.0', ...BRIDGE, device: '0x347b', numaNode: 1, iommuGroup: 24 });
  const nvme = '0000:85:00.0';
  fixture.addPciDevice({
    address: nvme,
    parent: '0000:80:03.0',
    vendor: '0x144d',
    device: '0xa80a',
    class: '0x010802',
    driver: 'nvme',
    numaNode: -1,
    localCpulist: '16-31',
    iommuGroup: 40,
  });
  return { gpu, connectx: { pf: connectx, vfs: ['0000:84:00.2'] }, nvme };
}
