import { renameSync, rmSync } from 'node:fs';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import type { Gpu } from '../scan/gpu';
import { linkKfd } from './driver-files';

// An 8 × MI300X node as amdgpu shows it: PCI class 0x1200 functions behind PCIe switches, compute partitions as
// extra KFD nodes (their index in location_id's function bits) and `amdgpu_xcp_N` platform devices, XGMI between
// every pair of GPUs. Layout and values follow a real MI300X's sysfs (and ROCm's captured CPX topology).

/** PCI addresses of the eight MI300X: the first four on NUMA node 0, the others on NUMA node 1. */
export const MI300X_GPUS = [
  '0000:05:00.0',
  '0000:27:00.0',
  '0000:47:00.0',
  '0000:65:00.0',
  '0000:85:00.0',
  '0000:a7:00.0',
  '0000:c7:00.0',
  '0000:e5:00.0',
] as const;

/** A compute partition mode of MI300X and the number of partitions it makes. */
export const MI300X_PARTITIONS = { SPX: 1, DPX: 2, QPX: 4, CPX: 8 } as const;

/** The partition modes of one MI300X. */
export interface Mi300xModes {
  readonly compute: keyof typeof MI300X_PARTITIONS;
  readonly memory: 'NPS1' | 'NPS4';
}

/** Options of {@link buildMi300xMachine}. */
export interface Mi300xMachineOptions {
  /** The modes of every GPU, or one entry per GPU (default SPX, NPS1). */
  readonly modes?: Mi300xModes | readonly Mi300xModes[];
}

/** amdgpu preallocates seven `amdgpu_xcp_N` DRM devices per MI300X, whatever its mode. */
const EXTRA_XCPS = 7;
/** Each GPU takes eight DRM minors: its own card and render node, then those of its seven xcp devices. */
const MINORS_PER_GPU = 8;

/**
 * The device ID of a compute partition as ROCm's plugin names it: partition 0 is the GPU's PCI address, partition
 * k > 0 the platform device `amdgpu_xcp_<7 × gpu + k − 1>`.
 */
export function mi300xPartitionId(gpu: number, partition: number): string {
  const address = MI300X_GPUS[gpu];
  if (address === undefined) throw new Error(`no MI300X ${gpu}`);
  return partition === 0 ? address : `amdgpu_xcp_${EXTRA_XCPS * gpu + partition - 1}`;
}

/** A KFD topology node of an MI300X partition (properties as amdgpu 6.x writes them for gfx942). */
function addKfdPartition(
  fixture: SysfsFixture,
  spec: {
    readonly node: number;
    readonly gpu: number;
    readonly partition: number;
    readonly xccs: number;
    readonly numa: number;
    readonly peers: readonly { readonly node: number; readonly sameGpu: boolean }[];
  },
): void {
  const address = MI300X_GPUS[spec.gpu] as string;
  const bus = parseInt(address.slice(5, 7), 16);
  const dir = `devices/virtual/kfd/kfd/topology/nodes/${spec.node}`;
  fixture.write(`${dir}/gpu_id`, `${(0x1a2b + spec.node * 0x3c5d) & 0xffff}\n`);
  fixture.write(`${dir}/name`, 'gfx942\n');
  fixture.write(
    `${dir}/properties`,
    [
      'cpu_cores_count 0',
      `simd_count ${152 * spec.xccs}`,
      'mem_banks_count 1',
      `io_links_count ${spec.peers.length + 1}`,
      'p2p_links_count 0',
      'wave_front_size 64',
      'gfx_target_version 90402',
      'vendor_id 4098',
      'device_id 29857',
      `location_id ${(bus << 8) | spec.partition}`,
      'domain 0',
      `drm_render_minor ${128 + spec.gpu * MINORS_PER_GPU + spec.partition}`,
      'hive_id 15188982192727901047',
      'num_sdma_engines 2',
      `unique_id ${16404946649897475633n + BigInt(spec.gpu) * 977n}`,
      `num_xcc ${spec.xccs}`,
      'max_engine_clk_ccompute 2750',
      '',
    ].join('\n'),
  );
  const link = (index: number, type: number, to: number, weight: number): void =>
    fixture.write(
      `${dir}/io_links/${index}/properties`,
      `type ${type}\nversion_major 0\nversion_minor 0\nnode_from ${spec.node}\nnode_to ${to}\nweight ${weight}\nmin_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth ${type === 2 ? 64000 : 819200}\nrecommended_transfer_size 0\nflags 1\n`,
    );
  link(0, 2, spec.numa, 20);
  spec.peers.forEach((peer, i) => link(i + 1, 11, peer.node, peer.sameGpu ? 13 : spec.xccs === 8 ? 15 : 41));
}

/** An `amdgpu_xcp_N` platform device with its DRM card and render node (sysfs, /sys/class/drm, /dev/dri). */
function addXcpDevice(fixture: SysfsFixture, name: string, card: number, render: number): void {
  const dir = `devices/platform/${name}`;
  fixture.write(`${dir}/uevent`, '');
  fixture.linkTo(`${dir}/subsystem`, 'bus/platform');
  fixture.linkTo(`bus/platform/devices/${name}`, dir);
  for (const [node, minor] of [
    [`card${card}`, card],
    [`renderD${render}`, render],
  ] as const) {
    fixture.write(`${dir}/drm/${node}/dev`, `226:${minor}\n`);
    fixture.linkTo(`${dir}/drm/${node}/device`, dir);
    fixture.linkTo(`class/drm/${node}`, `${dir}/drm/${node}`);
    fixture.addDevNode(`/dev/dri/${node}`, 226, minor);
  }
}

/** The PCIe path of one GPU: root port, then a switch's upstream and downstream ports. */
function addGpuSlot(fixture: SysfsFixture, address: string, numaNode: number): void {
  const bus = parseInt(address.slice(5, 7), 16);
  const hex = (value: number): string => value.toString(16).padStart(2, '0');
  const root = `0000:${hex(bus & 0xe0)}:01.1`;
  const up = `0000:${hex(bus - 2)}:00.0`;
  const down = `0000:${hex(bus - 1)}:00.0`;
  const port = { class: '0x060400', driver: 'pcieport', numaNode } as const;
  fixture.addPciDevice({ address: root, vendor: '0x1022', device: '0x14ab', ...port });
  fixture.addPciDevice({ address: up, parent: root, vendor: '0x1000', device: '0xc030', ...port });
  fixture.addPciDevice({ address: down, parent: up, vendor: '0x1000', device: '0xc030', ...port });
}

/**
 * A 2-socket node with eight AMD Instinct MI300X (PCI class 0x120000, `amdgpu`), four per NUMA node, XGMI between
 * every pair, in the given partition modes: in SPX one KFD node per GPU, in DPX/QPX/CPX one per partition, each
 * partition beyond the first on its own `amdgpu_xcp_N` platform device (all 56 exist in every mode, as amdgpu
 * creates them up front; KFD lists only those in use).
 */
export function buildMi300xMachine(options: Mi300xMachineOptions = {}): SysfsFixture {
  const fixture = createSysfsFixture();
  fixture.addNumaNode({ id: 0, cpus: '0-95', distances: [10, 32] });
  fixture.addNumaNode({ id: 1, cpus: '96-191', distances: [32, 10] });
  const modes = (gpu: number): Mi300xModes => {
    const given = options.modes ?? { compute: 'SPX', memory: 'NPS1' };
    return 'compute' in given ? given : (given[gpu] ?? { compute: 'SPX', memory: 'NPS1' });
  };
  fixture.write(
    'devices/virtual/kfd/kfd/topology/system_properties',
    'platform_oem 0\nplatform_id 0\nplatform_rev 0\n',
  );
  fixture.write('devices/virtual/kfd/kfd/topology/generation_id', '1\n');
  for (const [node, cpus] of [
    [0, 96],
    [1, 96],
  ] as const) {
    const dir = `devices/virtual/kfd/kfd/topology/nodes/${node}`;
    fixture.write(`${dir}/gpu_id`, '0\n');
    fixture.write(
      `${dir}/properties`,
      `cpu_cores_count ${cpus}\nsimd_count 0\nlocation_id 0\ndomain 0\ndrm_render_minor 0\n`,
    );
  }
  const partitions = MI300X_GPUS.map((_, gpu) => MI300X_PARTITIONS[modes(gpu).compute]);
  const firstNode = partitions.map((_, gpu) => 2 + partitions.slice(0, gpu).reduce((a, b) => a + b, 0));
  MI300X_GPUS.forEach((address, gpu) => {
    const numaNode = gpu < 4 ? 0 : 1;
    const { compute, memory } = modes(gpu);
    addGpuSlot(fixture, address, numaNode);
    fixture.addPciDevice({
      address,
      parent: `0000:${(parseInt(address.slice(5, 7), 16) - 1).toString(16).padStart(2, '0')}:00.0`,
      vendor: '0x1002',
      device: '0x74a1',
      subsystemVendor: '0x1002',
      subsystemDevice: '0x74a1',
      class: '0x120000',
      revision: '0x00',
      driver: 'amdgpu',
      numaNode,
      iommuGroup: 40 + gpu,
      attributes: {
        product_name: 'AMD Instinct MI300X',
        current_compute_partition: compute,
        available_compute_partition: 'SPX, DPX, QPX, CPX',
        current_memory_partition: memory,
        available_memory_partition: 'NPS1, NPS4',
      },
    });
    const card = gpu * MINORS_PER_GPU;
    fixture.addClassDevice('drm', `card${card}`, { pciAddress: address, subdir: 'drm', dev: `226:${card}` });
    fixture.addClassDevice('drm', `renderD${128 + card}`, {
      pciAddress: address,
      subdir: 'drm',
      dev: `226:${128 + card}`,
    });
    fixture.addDevNode(`/dev/dri/card${card}`, 226, card);
    fixture.addDevNode(`/dev/dri/renderD${128 + card}`, 226, 128 + card);
    for (let k = 1; k <= EXTRA_XCPS; k++)
      addXcpDevice(fixture, `amdgpu_xcp_${EXTRA_XCPS * gpu + k - 1}`, card + k, 128 + card + k);
    const count = partitions[gpu] as number;
    for (let k = 0; k < count; k++) {
      const node = (firstNode[gpu] as number) + k;
      const peers = partitions.flatMap((n, other) =>
        Array.from({ length: n }, (_, j) => ({
          node: (firstNode[other] as number) + j,
          sameGpu: other === gpu,
        })),
      );
      addKfdPartition(fixture, {
        node,
        gpu,
        partition: k,
        xccs: 8 / count,
        numa: numaNode,
        peers: peers.filter((peer) => peer.node !== node),
      });
    }
  });
  fixture.linkTo('module/amdgpu/drivers/pci:amdgpu', 'bus/pci/drivers/amdgpu');
  linkKfd(fixture);
  return fixture;
}

/**
 * The GPUs of a {@link buildMi300xMachine} fixture switched to other partition modes, as after amdgpu reloaded in
 * them: the fixture's sysfs tree is replaced (two renames) by that of a machine built in the new modes. Its /dev
 * already holds every node of every mode.
 */
export function switchMi300xModes(fixture: SysfsFixture, options: Mi300xMachineOptions): void {
  const next = buildMi300xMachine(options);
  const old = `${fixture.root}-old`;
  renameSync(fixture.root, old);
  renameSync(next.root, fixture.root);
  rmSync(old, { recursive: true, force: true });
  next.remove();
}

/** An AMD device record without a machine behind it (unit tests of naming and allocation): healthy, no nodes. */
export function amdGpuRecord(fields: Partial<Gpu> & Pick<Gpu, 'id' | 'pciAddress'>): Gpu {
  return {
    kind: 'amd',
    model: 'AMD Instinct MI300X',
    numaNodes: [],
    pciePath: [],
    deviceNodes: [],
    sharedNodes: [],
    mounts: [],
    attributes: {},
    problems: [],
    xgmiPeers: [],
    ...fields,
  };
}
