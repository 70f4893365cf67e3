import { addTwoSocketMachine, createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import {
  addDrmNodes,
  addKfdCpuNode,
  addKfdGpuNode,
  addMigInstance,
  addNvidiaControlNodes,
  addNvidiaGpuFiles,
  linkKfd,
  migMinorsTable,
} from './driver-files';

/** UUIDs of the NVIDIA fixture, by PCI address. */
export const NVIDIA_UUIDS = {
  '0000:03:00.0': 'GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01',
  '0000:04:00.0': 'GPU-7a2d4e19-15c3-4b8f-9e62-2c0a7d5b3e02',
  '0000:83:00.0': 'GPU-c81e0f5d-6b4a-4d27-b3f9-8e1d6a2c4f03',
  '0000:86:00.0': 'GPU-5e9b2c71-0a3d-4f86-a1c4-7d2e9b0f6a04',
} as const;

/**
 * A 2-socket server (topology's fixture: 3 × H100 on NUMA 0, 0, 1) plus an A100 in MIG mode with two GPU
 * instances on NUMA 1, a GPU the nvidia driver is not bound to, and an NVSwitch (not a GPU).
 */
export function buildNvidiaMachine(): SysfsFixture {
  const fixture = createSysfsFixture();
  addTwoSocketMachine(fixture);
  const bridge = { vendor: '0x8086', class: '0x060400', driver: 'pcieport', device: '0x347c', numaNode: 1 };
  fixture.addPciDevice({ address: '0000:80:05.0', ...bridge, iommuGroup: 25 });
  fixture.addPciDevice({
    address: '0000:86:00.0',
    parent: '0000:80:05.0',
    vendor: '0x10de',
    device: '0x20b2',
    subsystemDevice: '0x1463',
    class: '0x030200',
    revision: '0xa1',
    driver: 'nvidia',
    numaNode: 1,
    iommuGroup: 41,
  });
  fixture.addPciDevice({ address: '0000:80:07.0', ...bridge, iommuGroup: 26 });
  fixture.addPciDevice({
    address: '0000:87:00.0',
    parent: '0000:80:07.0',
    vendor: '0x10de',
    device: '0x2330',
    class: '0x030200',
    numaNode: 1,
    iommuGroup: 42,
  });
  fixture.addPciDevice({
    address: '0000:88:00.0',
    parent: '0000:80:07.0',
    vendor: '0x10de',
    device: '0x22a3',
    class: '0x068000',
    driver: 'nvidia',
    numaNode: 1,
  });
  addNvidiaControlNodes(fixture);
  const gpus: [keyof typeof NVIDIA_UUIDS, number, string][] = [
    ['0000:03:00.0', 0, 'NVIDIA H100 80GB HBM3'],
    ['0000:04:00.0', 1, 'NVIDIA H100 80GB HBM3'],
    ['0000:83:00.0', 2, 'NVIDIA H100 80GB HBM3'],
    ['0000:86:00.0', 3, 'NVIDIA A100-SXM4-80GB'],
  ];
  for (const [address, minor, model] of gpus) {
    addNvidiaGpuFiles(fixture, { address, uuid: NVIDIA_UUIDS[address], minor, model });
  }
  fixture.writeProc('driver/nvidia-caps/mig-minors', migMinorsTable());
  addMigInstance(fixture, 3, 1, [0]);
  addMigInstance(fixture, 3, 2, [0]);
  return fixture;
}

/** AMD addresses of {@link buildAmdMachine}: a, b on NUMA 0; c, d on NUMA 1; XGMI a–c and b–d. */
export const AMD_GPUS = {
  a: '0000:03:00.0',
  b: '0000:04:00.0',
  c: '0000:83:00.0',
  d: '0000:84:00.0',
} as const;

function twoSockets(fixture: SysfsFixture): void {
  fixture.addNumaNode({ id: 0, cpus: '0-15', distances: [10, 21] });
  fixture.addNumaNode({ id: 1, cpus: '16-31', distances: [21, 10] });
  const bridge = { vendor: '0x8086', class: '0x060400', driver: 'pcieport', device: '0x347a' };
  fixture.addPciDevice({ address: '0000:00:01.0', ...bridge, numaNode: 0 });
  fixture.addPciDevice({ address: '0000:80:01.0', ...bridge, numaNode: 1 });
}

/**
 * Four MI210 on two NUMA nodes, XGMI bridges joining a–c and b–d (across sockets), a fifth MI210 without a
 * driver and a sixth bound to amdgpu that KFD does not list.
 */
export function buildAmdMachine(): SysfsFixture {
  const fixture = createSysfsFixture();
  twoSockets(fixture);
  const gpu = (address: string, numaNode: number, driver?: string) =>
    fixture.addPciDevice({
      address,
      parent: numaNode === 0 ? '0000:00:01.0' : '0000:80:01.0',
      vendor: '0x1002',
      device: '0x740f',
      subsystemDevice: '0x0c34',
      class: '0x038000',
      revision: '0x02',
      ...(driver !== undefined ? { driver } : {}),
      numaNode,
      attributes: { product_name: 'AMD Instinct MI210' },
    });
  const nodes: [string, number, number, number][] = [
    [AMD_GPUS.a, 0, 2, 1],
    [AMD_GPUS.b, 0, 3, 2],
    [AMD_GPUS.c, 1, 4, 3],
    [AMD_GPUS.d, 1, 5, 4],
  ];
  for (const [address, numa] of nodes) gpu(address, numa, 'amdgpu');
  gpu('0000:85:00.0', 1);
  gpu('0000:86:00.0', 1, 'amdgpu');
  addKfdCpuNode(fixture, 0, 16);
  addKfdCpuNode(fixture, 1, 16);
  const xgmiPeer: Record<string, number> = {
    [AMD_GPUS.a]: 4,
    [AMD_GPUS.c]: 2,
    [AMD_GPUS.b]: 5,
    [AMD_GPUS.d]: 3,
  };
  for (const [address, numa, node, card] of nodes) {
    addKfdGpuNode(fixture, {
      node,
      gpuId: 1000 + node * 1111,
      address,
      renderMinor: 127 + card,
      links: [
        { to: numa, type: 2 },
        { to: xgmiPeer[address] as number, type: 11 },
      ],
    });
    addDrmNodes(fixture, address, card, 127 + card);
  }
  addDrmNodes(fixture, '0000:86:00.0', 6, 133);
  linkKfd(fixture);
  return fixture;
}

/** Intel addresses of {@link buildIntelMachine}. */
export const INTEL_GPUS = { flex: '0000:03:00.0', battlemage: '0000:83:00.0', igpu: '0000:00:02.0' } as const;

/** A Flex 170 (i915, NUMA 0), an Arc B580 (xe, NUMA 1), an integrated GPU (i915, no NUMA), an unbound card. */
export function buildIntelMachine(): SysfsFixture {
  const fixture = createSysfsFixture();
  twoSockets(fixture);
  const gpu = (
    address: string,
    device: string,
    klass: string,
    numaNode: number,
    parent?: string,
    driver?: string,
  ) =>
    fixture.addPciDevice({
      address,
      ...(parent !== undefined ? { parent } : {}),
      vendor: '0x8086',
      device,
      class: klass,
      ...(driver !== undefined ? { driver } : {}),
      numaNode,
    });
  gpu(INTEL_GPUS.igpu, '0xa7a0', '0x030000', -1, undefined, 'i915');
  gpu(INTEL_GPUS.flex, '0x56c0', '0x038000', 0, '0000:00:01.0', 'i915');
  gpu(INTEL_GPUS.battlemage, '0xe20b', '0x030000', 1, '0000:80:01.0', 'xe');
  gpu('0000:84:00.0', '0x56c0', '0x038000', 1, '0000:80:01.0');
  addDrmNodes(fixture, INTEL_GPUS.igpu, 0, 128);
  addDrmNodes(fixture, INTEL_GPUS.flex, 1, 129);
  addDrmNodes(fixture, INTEL_GPUS.battlemage, 2, 130);
  fixture.addDevLink(`/dev/dri/by-path/pci-${INTEL_GPUS.flex}-card`, '../card1');
  fixture.addDevLink(`/dev/dri/by-path/pci-${INTEL_GPUS.flex}-render`, '../renderD129');
  return fixture;
}
