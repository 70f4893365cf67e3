import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';
import { UEVENT_SEQNUM } from '../scan/read-uevent-support';

/** One VF of a fixture PF. */
export interface FixtureVf {
  readonly address: string;
  readonly driver?: string;
  readonly netdev?: string;
  readonly rdma?: string;
  /** The RDMA device's default partition key (`ports/1/pkeys/0`, e.g. `0x7fff`); absent = no pkeys file. */
  readonly pKey?: string;
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
  pf.vfs.forEach((vf, index) => addVf(fixture, pf, vf, index));
  raiseUevent(fixture);
}

/**
 * Adds one VF of `pf` at `index` (updates the PF's sriov_numvfs), with the device nodes its driver gives it
 * under the dev root: `/dev/vfio/vfio` and `/dev/vfio/<group>` for vfio-pci, the RDMA character devices and
 * `/dev/infiniband/rdma_cm` for an RDMA device.
 */
export function addSriovVf(fixture: SysfsFixture, pf: FixturePf, vf: FixtureVf, index: number): void {
  addVf(fixture, pf, vf, index);
  // sriov_numvfs: the VFs the PF has now (a VF added back after a removal counts once).
  const pfDir = fixture.pciDir(pf.address);
  const numVfs = entries(join(fixture.root, pfDir)).filter((name) => /^virtfn\d+$/.test(name)).length;
  fixture.write(`${pfDir}/sriov_numvfs`, `${numVfs}\n`);
  raiseUevent(fixture);
}

/** Adds a VF with its netdev, RDMA device and device nodes; sriov_numvfs as the fixture counts (see addSriovPf). */
function addVf(fixture: SysfsFixture, pf: FixturePf, vf: FixtureVf, index: number): void {
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
  if (vf.driver === 'vfio-pci') addVfioNodes(fixture, vf.iommuGroup);
  if (vf.rdma !== undefined) {
    const rdmaDir = fixture.addClassDevice('infiniband', vf.rdma, { pciAddress: vf.address });
    if (vf.pKey !== undefined) fixture.write(`${rdmaDir}/ports/1/pkeys/0`, `${vf.pKey}\n`);
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
    fixture.addDevNode(`/dev/infiniband/uverbs${n}`, 231, 192 + Number(n));
    fixture.addDevNode(`/dev/infiniband/umad${n}`, 231, Number(n));
    fixture.addDevNode(`/dev/infiniband/issm${n}`, 231, 64 + Number(n));
    fixture.addDevNode('/dev/infiniband/rdma_cm', 10, 58);
  }
}

/** The VFIO container node and the node of one IOMMU group (its minor: the group number, as a stand-in). */
function addVfioNodes(fixture: SysfsFixture, group: number): void {
  fixture.addDevNode('/dev/vfio/vfio', 10, 196);
  fixture.addDevNode(`/dev/vfio/${group}`, 243, group);
}

/**
 * Removes VF `index` of a PF as the kernel does when sriov_numvfs shrinks (unbound first, its netdevs gone from
 * class/net), and rewrites sriov_numvfs.
 */
export function removeSriovVf(
  fixture: SysfsFixture,
  pfAddress: string,
  vfAddress: string,
  index: number,
  numVfs: number,
): void {
  bindDriver(fixture, vfAddress, undefined);
  const vfDir = join(fixture.root, fixture.pciDir(vfAddress));
  const pfDir = fixture.pciDir(pfAddress);
  const group = linkName(join(vfDir, 'iommu_group'));
  if (group !== undefined) rmSync(join(fixture.root, `kernel/iommu_groups/${group}`), { recursive: true });
  for (const netdev of entries(join(vfDir, 'net'))) rmSync(join(fixture.root, 'class/net', netdev));
  for (const rdma of entries(join(vfDir, 'infiniband'))) removeRdmaDevice(fixture, rdma);
  unlinkSync(join(fixture.root, `bus/pci/devices/${vfAddress}`));
  unlinkSync(join(fixture.root, `${pfDir}/virtfn${index}`));
  rmSync(vfDir, { recursive: true, force: true });
  fixture.write(`${pfDir}/sriov_numvfs`, `${numVfs}\n`);
  raiseUevent(fixture);
}

/**
 * Rebinds a function to another driver (or unbinds it with undefined) as the kernel does: its `driver` link and
 * its entry in `bus/pci/drivers/<driver>/` change together, and a vfio-pci function's `/dev/vfio/<group>` node
 * comes and goes with the binding.
 */
export function bindDriver(fixture: SysfsFixture, address: string, driver: string | undefined): void {
  const dir = fixture.pciDir(address);
  const link = join(fixture.root, `${dir}/driver`);
  const group = linkName(join(fixture.root, `${dir}/iommu_group`));
  const old = linkName(link);
  if (old !== undefined) {
    rmSync(link, { force: true });
    rmSync(join(fixture.root, `bus/pci/drivers/${old}/${address}`), { force: true });
    if (old === 'vfio-pci' && group !== undefined) fixture.removeDevNode(`/dev/vfio/${group}`);
    raiseUevent(fixture);
  }
  if (driver === undefined) return;
  fixture.linkTo(`${dir}/driver`, `bus/pci/drivers/${driver}`);
  fixture.linkTo(`bus/pci/drivers/${driver}/${address}`, dir);
  if (driver === 'vfio-pci' && group !== undefined) addVfioNodes(fixture, Number(group));
  raiseUevent(fixture);
}

/**
 * Makes the fixture count uevents as a Linux kernel of `release` does (`kernel/uevent_seqnum`, procfs
 * `sys/kernel/osrelease`): from then on every builder here that adds, removes or (un)binds something raises
 * one ({@link raiseUevent}); a carrier change raises none, as in the kernel.
 */
export function emulateUevents(fixture: SysfsFixture, release = '6.8.0'): void {
  fixture.write(UEVENT_SEQNUM, '0\n');
  fixture.writeProc('sys/kernel/osrelease', `${release}\n`);
}

/** Counts one uevent, when the fixture emulates the counter (tests that change the tree by hand call it). */
export function raiseUevent(fixture: SysfsFixture): void {
  let count: number;
  try {
    count = Number(readFileSync(join(fixture.root, UEVENT_SEQNUM), 'utf8'));
  } catch {
    return;
  }
  fixture.write(UEVENT_SEQNUM, `${count + 1}\n`);
}

/** Sets a PF's carrier ("1" up, "0" down) and, with it, its operstate. */
export function setCarrier(fixture: SysfsFixture, address: string, netdev: string, up: boolean): void {
  fixture.write(`${fixture.pciDir(address)}/net/${netdev}/carrier`, up ? '1\n' : '0\n');
  fixture.write(`${fixture.pciDir(address)}/net/${netdev}/operstate`, up ? 'up\n' : 'down\n');
}

/** Removes an RDMA device's class entries and the character devices (sysfs and /dev) whose `ibdev` names it. */
function removeRdmaDevice(fixture: SysfsFixture, name: string): void {
  rmSync(join(fixture.root, 'class/infiniband', name));
  for (const className of ['infiniband_verbs', 'infiniband_mad']) {
    const dir = join(fixture.root, 'devices/virtual', className);
    for (const entry of entries(dir)) {
      if (readFileSync(join(dir, entry, 'ibdev'), 'utf8').trim() !== name) continue;
      rmSync(join(dir, entry), { recursive: true });
      rmSync(join(fixture.root, 'class', className, entry));
      fixture.removeDevNode(`/dev/infiniband/${entry}`);
    }
  }
}

/** The last component of a link's target; undefined when there is no link. */
function linkName(path: string): string | undefined {
  try {
    return basename(readlinkSync(path));
  } catch {
    return undefined;
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
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
    attributes: {
      type: String(type),
      operstate: carrier ? 'up' : 'down',
      carrier: carrier ? '1' : '0',
      address: fixtureMac(name),
    },
  });
}

/** The hardware address the fixture gives netdev `name`: locally administered, from the name's SHA-256. */
export function fixtureMac(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 5);
  return ['02', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':');
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
  raiseUevent(fixture);
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

/** Options of {@link addLargeSriovNode}. */
export interface LargeSriovNodeOptions {
  /** Emulate a kernel counting uevents ({@link emulateUevents}); default true, as every kernel since 4.14. */
  readonly uevents?: boolean;
  /** Physical functions (default 8), the first half on NUMA node 0, the rest on node 1. */
  readonly pfs?: number;
  /** VFs per PF (default 256): even indexes on iavf (netdev `ens<p>f0v<i>`), odd ones on vfio-pci. */
  readonly vfsPerPf?: number;
}

/**
 * The benchmarks' scale point: Intel E810 PFs (`ens<p>f0`, ice, VF device 1889) at `0000:<10·(p+1)>:00.0`, each
 * with its own root port and VFs by the routing-ID formula (offset 8, stride 1), IOMMU groups from 1000, on two
 * NUMA nodes, and the management NIC holding the default route; uevents counted unless `uevents` is false.
 * Returns the PFs.
 */
export function addLargeSriovNode(fixture: SysfsFixture, options: LargeSriovNodeOptions = {}): FixturePf[] {
  const { pfs = 8, vfsPerPf = 256, uevents = true } = options;
  if (uevents) emulateUevents(fixture);
  fixture.addNumaNode({ id: 0, cpus: '0-31', distances: [10, 21] });
  fixture.addNumaNode({ id: 1, cpus: '32-63', distances: [21, 10] });
  const hex = (n: number): string => n.toString(16).padStart(2, '0');
  const added: FixturePf[] = [];
  for (let p = 0; p < pfs; p++) {
    const bus = 0x10 * (p + 1);
    const vfAddress = (i: number): string => {
      const rid = (bus << 8) + 8 + i;
      return `0000:${hex(rid >> 8)}:${hex((rid >> 3) & 0x1f)}.${rid & 7}`;
    };
    const pf: FixturePf = {
      address: `0000:${hex(bus)}:00.0`,
      rootPort: `0000:${hex(bus - 1)}:00.0`,
      vendor: '8086',
      device: '1593',
      vfDevice: '1889',
      driver: 'ice',
      netdev: `ens${p}f0`,
      numaNode: p < pfs / 2 ? 0 : 1,
      totalVfs: vfsPerPf,
      offsetStride: [8, 1],
      vfs: Array.from({ length: vfsPerPf }, (_, i) => ({
        address: vfAddress(i),
        iommuGroup: 1000 + p * vfsPerPf + i,
        ...(i % 2 === 0 ? { driver: 'iavf', netdev: `ens${p}f0v${i}` } : { driver: 'vfio-pci' }),
      })),
    };
    addSriovPf(fixture, pf);
    added.push(pf);
  }
  addDefaultRouteNic(fixture);
  return added;
}

/**
 * The configuration of the benchmarks' node ({@link addLargeSriovNode}), three pools holding all 2,048 VFs:
 * `e810_netdev` (iavf VFs 0-127 of ens0f0 and every iavf VF of ens1f0 and ens2f0, by `pfNames` ranges),
 * `e810_dpdk` (every vfio-pci VF) and `e810_rest` (the other iavf VFs), prefix intel.com.
 */
export const LARGE_SRIOV_CONFIG = `${JSON.stringify(
  {
    resourceList: [
      {
        resourceName: 'e810_netdev',
        selectors: { drivers: ['iavf'], pfNames: ['ens0f0#0-127', 'ens1f0', 'ens2f0'] },
      },
      { resourceName: 'e810_dpdk', selectors: { drivers: ['vfio-pci'] } },
      { resourceName: 'e810_rest', selectors: { vendors: ['8086'], devices: ['1889'] } },
    ],
  },
  null,
  2,
)}\n`;

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
