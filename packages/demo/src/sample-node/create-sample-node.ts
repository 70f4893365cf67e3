import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { addDflCard, IF_ID, NLB0 } from '@kdp/plugin-fpga/testing';
import {
  addAmdGpu,
  addKfdCpuNode,
  addNvidiaControlNodes,
  addNvidiaGpu,
  linkKfd,
} from '@kdp/plugin-gpu/testing';
import { addRdmaDevice } from '@kdp/plugin-infiniband/testing';
import { addDefaultRouteNic, addSriovPf, type FixturePf } from '@kdp/plugin-sriov/testing';
import { createUsbFixture, SAMPLE_DEVICES } from '@kdp/plugin-usb/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { PLUGIN_NAMES, type PluginName } from '../plugin-names';
import { EXPECTED_RESOURCES, SAMPLE_CONFIGS, type ExpectedResource } from './sample-configs';

/** A device the demo can make fail and recover, and how. */
export interface DeviceFault {
  readonly plugin: PluginName;
  readonly resource: string;
  readonly deviceId: string;
  /** What `fail()` does, in words. */
  readonly failure: string;
  /** What `recover()` does, in words. */
  readonly recovery: string;
  fail(): void;
  recover(): void;
}

/** A sample node on disk. */
export interface SampleNode {
  /** The temp dir holding `sys/`, `proc/`, `dev/` and `config/`. */
  readonly root: string;
  readonly sysfsRoot: string;
  readonly procRoot: string;
  readonly devRoot: string;
  /** The configuration file of each plugin. */
  readonly configs: Readonly<Record<PluginName, string>>;
  /** The common flags each plugin's own process gets on this node (the InfiniBand plugin's `--poll-interval`). */
  readonly flags: Readonly<Record<PluginName, readonly string[]>>;
  /** What each plugin should advertise. */
  readonly expected: readonly ExpectedResource[];
  /** The device that fails and recovers in the demo: the second NVIDIA GPU loses /dev/nvidia1. */
  readonly fault: DeviceFault;
  /** Deletes the temp dir. */
  remove(): void;
}

/** The host bridge and the PCIe root ports, one above each card. */
const HOST_BRIDGE = { vendor: '0x8086', device: '0x09a2', class: '0x060000' } as const;
const ROOT_PORT = { vendor: '0x8086', device: '0x347a', class: '0x060400', driver: 'pcieport' } as const;

/** Two H100, one per socket: `/dev/nvidia0` on NUMA 0 and `/dev/nvidia1` on NUMA 1. */
const NVIDIA_GPUS = [
  { address: '0000:17:00.0', rootPort: '0000:16:01.0', uuid: 'GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01' },
  { address: '0000:99:00.0', rootPort: '0000:98:01.0', uuid: 'GPU-c81e0f5d-6b4a-4d27-b3f9-8e1d6a2c4f03' },
] as const;

/** Intel E810 on socket 0 with 6 VFs: 0-3 on iavf (netdevs), 4-5 on vfio-pci (/dev/vfio/<group>). */
const E810: FixturePf = {
  address: '0000:3b:00.0',
  rootPort: '0000:3a:00.0',
  numaNode: 0,
  netdev: 'ens1f0',
  driver: 'ice',
  vendor: '8086',
  device: '1593',
  vfDevice: '1889',
  totalVfs: 128,
  offsetStride: [8, 1],
  vfs: [0, 1, 2, 3, 4, 5].map((i) => ({
    address: `0000:3b:01.${i}`,
    iommuGroup: 100 + i,
    ...(i < 4 ? { driver: 'iavf', netdev: `ens1f0v${i}` } : { driver: 'vfio-pci' }),
  })),
};

const CONNECTX6 = { vendor: '0x15b3', device: '0x101b', class: '0x020700', driver: 'mlx5_core' } as const;

/** Two ConnectX-6 HCAs with one ACTIVE InfiniBand port each, one per socket. */
const HCAS = [
  { address: '0000:5e:00.0', rootPort: '0000:5d:00.0', guid: 'b83f:d203:00a1:5c2e' },
  { address: '0000:d8:00.0', rootPort: '0000:d7:00.0', guid: 'b83f:d203:00a1:7d41' },
] as const;

/**
 * Builds a realistic two-socket node (NUMA 0: CPUs 0-15, NUMA 1: CPUs 16-31) in a fresh temp dir from the
 * plugins' own fixture builders: two NVIDIA H100 and an AMD MI210, an Intel E810 with 6 SR-IOV VFs, two
 * ConnectX-6 InfiniBand HCAs, an Intel FPGA (DFL), six USB devices, and a configuration file per plugin.
 */
export function createSampleNode(): SampleNode {
  const fixture = createSysfsFixture();
  try {
    buildMachine(fixture);
  } catch (err) {
    fixture.remove();
    throw err;
  }
  const configDir = join(fixture.base, 'config');
  mkdirSync(configDir);
  const configs = {} as Record<PluginName, string>;
  const flags = {} as Record<PluginName, readonly string[]>;
  for (const plugin of PLUGIN_NAMES) {
    const { file, content } = SAMPLE_CONFIGS[plugin];
    configs[plugin] = join(configDir, file);
    writeFileSync(configs[plugin], content);
    flags[plugin] = SAMPLE_CONFIGS[plugin].flags;
  }
  const node = '/dev/nvidia1';
  return {
    root: fixture.base,
    sysfsRoot: fixture.root,
    procRoot: fixture.procRoot,
    devRoot: fixture.devRoot,
    configs,
    flags,
    expected: EXPECTED_RESOURCES,
    fault: {
      plugin: 'gpu',
      resource: 'nvidia.com/gpu',
      deviceId: NVIDIA_GPUS[1].uuid,
      failure: `remove ${node}`,
      recovery: `restore ${node}`,
      fail: () => fixture.removeDevNode(node),
      recover: () => fixture.addDevNode(node, 195, 1),
    },
    remove: () => fixture.remove(),
  };
}

function buildMachine(fixture: SysfsFixture): void {
  fixture.addNumaNode({ id: 0, cpus: '0-15', distances: [10, 21], memTotalKiB: 263_921_556 });
  fixture.addNumaNode({ id: 1, cpus: '16-31', distances: [21, 10], memTotalKiB: 263_921_556 });
  fixture.addPciDevice({ ...HOST_BRIDGE, address: '0000:00:00.0', numaNode: 0 });
  const rootPort = (address: string, numaNode: number): string => {
    fixture.addPciDevice({ address, numaNode, ...ROOT_PORT });
    return address;
  };

  // GPUs: the H100 as the nvidia driver shows them without NVML; the MI210 as amdgpu and KFD show it.
  addNvidiaControlNodes(fixture);
  NVIDIA_GPUS.forEach(({ address, rootPort: port, uuid }, minor) => {
    const numaNode = minor;
    addNvidiaGpu(fixture, {
      address,
      parent: rootPort(port, numaNode),
      numaNode,
      iommuGroup: 30 + minor,
      uuid,
      minor,
    });
  });
  addKfdCpuNode(fixture, 0, 16);
  addKfdCpuNode(fixture, 1, 16);
  addAmdGpu(fixture, {
    address: '0000:18:00.0',
    parent: rootPort('0000:16:02.0', 0),
    numaNode: 0,
    iommuGroup: 40,
    kfdNode: 2,
    gpuId: 3222,
    card: 0,
    render: 128,
    links: [{ to: 0, type: 2 }],
  });
  linkKfd(fixture);

  // SR-IOV: the E810 (its root port comes with it), the VFIO nodes of its vfio-pci VFs, and a management NIC
  // holding the default route (never offered).
  addSriovPf(fixture, E810);
  fixture.addDevNode('/dev/vfio/vfio', 10, 196);
  E810.vfs.forEach((vf, index) => {
    if (vf.driver === 'vfio-pci') fixture.addDevNode(`/dev/vfio/${vf.iommuGroup}`, 243, index);
  });
  addDefaultRouteNic(fixture);

  // InfiniBand: uverbsN, umadN, issmN and ibN per HCA, and rdma_cm.
  fixture.write('class/infiniband_verbs/abi_version', '6\n');
  fixture.write('class/infiniband_mad/abi_version', '5\n');
  HCAS.forEach(({ address, rootPort: port, guid }, n) => {
    addRdmaDevice(fixture, {
      name: `mlx5_${n}`,
      pci: { ...CONNECTX6, address, parent: rootPort(port, n), numaNode: n, iommuGroup: 60 + n },
      nodeGuid: guid,
      fwVer: '20.39.1002',
      ports: [{ rate: '200 Gb/sec (4X HDR)' }],
      uverbs: n,
      umad: [n],
      netdevs: [`ib${n}`],
    });
  });
  fixture.addDevNode('/dev/infiniband/rdma_cm', 10, 58);

  // FPGA: an Intel PAC on the DFL driver, socket 1, with Intel's NLB0 sample AFU loaded.
  const fpgaPort = rootPort('0000:b0:00.0', 1);
  addDflCard(fixture, {
    address: '0000:b1:00.0',
    parent: fpgaPort,
    numaNode: 1,
    iommuGroup: 70,
    index: 0,
    interfaceId: IF_ID,
    afuId: NLB0,
  });

  // USB: an xHCI controller with two FTDI adapters, a hub with a keyboard and a webcam, and a Zigbee stick.
  const controller = fixture.addPciDevice({
    address: '0000:00:14.0',
    vendor: '0x8086',
    device: '0xa36d',
    class: '0x0c0330',
    driver: 'xhci_hcd',
    numaNode: 0,
  });
  const usb = createUsbFixture(fixture);
  usb.addRootHub(1, { controller });
  usb.addRootHub(2, { controller });
  const { ftdiA, ftdiB, hub, keyboard, webcam, zigbee } = SAMPLE_DEVICES;
  usb.addDevice({ ...ftdiA, portPath: '1-1', devnum: 2 });
  usb.addDevice({ ...ftdiB, portPath: '1-2', devnum: 3 });
  usb.addDevice({ ...hub, portPath: '1-3', devnum: 4 });
  usb.addDevice({ ...keyboard, portPath: '1-3.1', devnum: 5 });
  usb.addDevice({ ...webcam, portPath: '1-3.2', devnum: 6 });
  usb.addDevice({ ...zigbee, portPath: '1-4', devnum: 7, speed: '12' });
}
