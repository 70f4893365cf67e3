import { rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';

/** One VF of a fixture PF. */
export interface FixtureVf {
  readonly address: string;
  readonly driver?: string;
  readonly netdev?: string;
  readonly rdma?: string;
  readonly iommuGroup: number;
}

/** One SR-IOV PF of a fixture node, with its VFs. */
export interface FixturePf {
  readonly address: string;
  readonly vendor: string;
  readonly device: string;
  readonly vfDevice: string;
  readonly driver: string;
  readonly netdev: string;
  readonly numaNode: number;
  readonly totalVfs: number;
  /** The root port above the PF (added here), e.g. "0000:3a:00.0". */
  readonly rootPort: string;
  readonly vfs: readonly FixtureVf[];
  /** sriov_offset / sriov_stride files (routing-ID formula); absent = only the virtfnN links say. */
  readonly offsetStride?: readonly [number, number];
  /** Link type number of the netdevs (1 ether, 32 infiniband); default 1. */
  readonly linkType?: number;
}

/** Adds a PF with its root port, netdev (with carrier) and VFs (drivers, netdevs, RDMA devices). */
export function addSriovPf(fixture: SysfsFixture, pf: FixturePf): void {
  const rootPort = pf.rootPort;
  fixture.addPciDevice({
    address: rootPort,
    vendor: '0x8086',
    class: '0x060400',
    driver: 'pcieport',
    numaNode: pf.numaNode,
  });
  fixture.addPciDevice({
    address: pf.address,
    parent: rootPort,
    vendor: `0x${pf.vendor}`,
    device: `0x${pf.device}`,
    class: '0x020000',
    driver: pf.driver,
    numaNode: pf.numaNode,
    sriovTotalVfs: pf.totalVfs,
    attributes: {
      sriov_vf_device: pf.vfDevice,
      ...(pf.offsetStride
        ? { sriov_offset: String(pf.offsetStride[0]), sriov_stride: String(pf.offsetStride[1]) }
        : {}),
    },
  });
  addNetdev(fixture, pf.address, pf.netdev, pf.linkType ?? 1, true);
  pf.vfs.forEach((vf, index) => addSriovVf(fixture, pf, vf, index));
}

/** Adds one VF of `pf` at `index` (updates the PF's sriov_numvfs). */
export function addSriovVf(fixture: SysfsFixture, pf: FixturePf, vf: FixtureVf, index: number): void {
  fixture.addPciDevice({
    address: vf.address,
    parent: pf.rootPort,
    vendor: `0x${pf.vendor}`,
    device: `0x${pf.vfDevice}`,
    class: '0x020000',
    numaNode: pf.numaNode,
    iommuGroup: vf.iommuGroup,
    physfn: pf.address,
    vfIndex: index,
    ...(vf.driver !== undefined ? { driver: vf.driver } : {}),
  });
  if (vf.netdev !== undefined) addNetdev(fixture, vf.address, vf.netdev, pf.linkType ?? 1, false);
  if (vf.rdma !== undefined) {
    fixture.addClassDevice('infiniband', vf.rdma, { pciAddress: vf.address });
    const n = vf.rdma.slice(vf.rdma.lastIndexOf('_') + 1);
    fixture.addClassDevice('infiniband_verbs', `uverbs${n}`, {
      attributes: { ibdev: vf.rdma },
      dev: `231:${192 + Number(n)}`,
    });
    fixture.addClassDevice('infiniband_mad', `umad${n}`, {
      attributes: { ibdev: vf.rdma, port: '1' },
      dev: `231:${n}`,
    });
    fixture.addClassDevice('infiniband_mad', `issm${n}`, {
      attributes: { ibdev: vf.rdma, port: '1' },
      dev: `231:${64 + Number(n)}`,
    });
  }
}

/** Removes VF `index` of a PF as the kernel does when sriov_numvfs shrinks, and rewrites sriov_numvfs. */
export function removeSriovVf(
  fixture: SysfsFixture,
  pfAddress: string,
  vfAddress: string,
  index: number,
  numVfs: number,
): void {
  const vfDir = join(fixture.root, fixture.pciDir(vfAddress));
  const pfDir = fixture.pciDir(pfAddress);
  unlinkSync(join(fixture.root, `bus/pci/devices/${vfAddress}`));
  unlinkSync(join(fixture.root, `${pfDir}/virtfn${index}`));
  rmSync(vfDir, { recursive: true, force: true });
  fixture.write(`${pfDir}/sriov_numvfs`, `${numVfs}\n`);
}

/** Rebinds a function to another driver (or unbinds it with undefined). */
export function bindDriver(fixture: SysfsFixture, address: string, driver: string | undefined): void {
  const dir = fixture.pciDir(address);
  rmSync(join(fixture.root, `${dir}/driver`), { force: true });
  if (driver !== undefined) fixture.linkTo(`${dir}/driver`, `bus/pci/drivers/${driver}`);
}

/** Sets a PF's carrier ("1" up, "0" down). */
export function setCarrier(fixture: SysfsFixture, address: string, netdev: string, up: boolean): void {
  fixture.write(`${fixture.pciDir(address)}/net/${netdev}/carrier`, up ? '1\n' : '0\n');
}

function addNetdev(
  fixture: SysfsFixture,
  address: string,
  name: string,
  type: number,
  carrier: boolean,
): void {
  fixture.addClassDevice('net', name, {
    pciAddress: address,
    attributes: { type: String(type), operstate: carrier ? 'up' : 'down', carrier: carrier ? '1' : '0' },
  });
}

/**
 * A management NIC (an e1000e function with carrier, `eno1` at 0000:00:1f.6 on NUMA 0 by default) holding the
 * IPv4 default route in /proc/net/route: what the plugin never offers, as upstream.
 */
export function addDefaultRouteNic(
  fixture: SysfsFixture,
  nic: { readonly address?: string; readonly netdev?: string; readonly numaNode?: number } = {},
): void {
  const { address = '0000:00:1f.6', netdev = 'eno1', numaNode = 0 } = nic;
  fixture.addPciDevice({
    address,
    vendor: '0x8086',
    device: '0x15bb',
    class: '0x020000',
    driver: 'e1000e',
    numaNode,
  });
  addNetdev(fixture, address, netdev, 1, true);
  fixture.writeProc(
    'net/route',
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' +
      `${netdev}\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n` +
      `${netdev}\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n`,
  );
}

/** The 2 PFs × 8 VFs node of the tests: Intel X710 on NUMA 0 (iavf + vfio-pci), ConnectX-5 on NUMA 1 (mlx5_core, RDMA). */
export function addTwoPfNode(fixture: SysfsFixture): { intel: FixturePf; mellanox: FixturePf } {
  for (const [id, cpus] of [
    [0, '0-15'],
    [1, '16-31'],
  ] as const) {
    fixture.addNumaNode({ id, cpus, distances: id === 0 ? [10, 21] : [21, 10] });
  }
  const intel: FixturePf = {
    address: '0000:3b:00.0',
    vendor: '8086',
    device: '1572',
    vfDevice: '154c',
    driver: 'i40e',
    netdev: 'ens1f0',
    numaNode: 0,
    totalVfs: 64,
    offsetStride: [16, 1],
    rootPort: '0000:3a:00.0',
    vfs: Array.from({ length: 8 }, (_, i) => ({
      address: `0000:3b:02.${i}`,
      iommuGroup: 100 + i,
      ...(i < 4 ? { driver: 'iavf', netdev: `ens1f0v${i}` } : { driver: 'vfio-pci' }),
    })),
  };
  const mlxAddresses = ['00.2', '00.3', '00.4', '00.5', '00.6', '00.7', '01.0', '01.1'];
  const mellanox: FixturePf = {
    address: '0000:d8:00.0',
    vendor: '15b3',
    device: '1017',
    vfDevice: '1018',
    driver: 'mlx5_core',
    netdev: 'ens2f0',
    numaNode: 1,
    totalVfs: 16,
    rootPort: '0000:d7:00.0',
    vfs: mlxAddresses.map((suffix, i) => ({
      address: `0000:d8:${suffix}`,
      iommuGroup: 200 + i,
      driver: 'mlx5_core',
      netdev: `ens2f0v${i}`,
      rdma: `mlx5_${i + 2}`,
    })),
  };
  addSriovPf(fixture, intel);
  addSriovPf(fixture, mellanox);
  // The management NIC holds the default route; a GPU is no candidate at all.
  addDefaultRouteNic(fixture);
  fixture.addPciDevice({
    address: '0000:af:00.0',
    vendor: '0x10de',
    device: '0x2330',
    class: '0x030200',
    driver: 'nvidia',
    numaNode: 1,
  });
  return { intel, mellanox };
}

/** The upstream-format configuration the tests use (JSON, exactly as written for sriov-network-device-plugin). */
export const UPSTREAM_CONFIG = `{
  "resourceList": [
    {
      "resourceName": "intel_sriov_netdevice",
      "selectors": { "vendors": ["8086"], "devices": ["154c"], "drivers": ["iavf"] }
    },
    {
      "resourceName": "intel_sriov_dpdk",
      "resourcePrefix": "intel.com",
      "selectors": { "vendors": ["8086"], "devices": ["154c"], "drivers": ["vfio-pci"] }
    },
    {
      "resourceName": "mlnx_sriov_rdma",
      "resourcePrefix": "nvidia.com",
      "selectors": { "pfNames": ["ens2f0#0-3"], "isRdma": true }
    },
    {
      "resourceName": "mlnx_rest",
      "resourcePrefix": "nvidia.com",
      "additionalInfo": { "*": { "team": "a&b" } },
      "selectors": [{ "pfNames": ["ens2f0#4,6"] }, { "rootDevices": ["0000:d8:00.0#7"], "needVhostNet": true }]
    }
  ]
}
`;
