import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { PLUGIN_NAMES, type PluginName } from '../plugin-names';
import { addFpga } from './add-fpga';
import { addAmdGpu, addNvidiaGpus, NVIDIA_GPUS } from './add-gpus';
import { addRdmaHcas } from './add-rdma-hcas';
import { addSriovNic } from './add-sriov-nic';
import { addUsbDevices } from './add-usb-devices';
import { removeDevNode, writeDevNode } from './dev-node';
import { EXPECTED_RESOURCES, SAMPLE_CONFIGS, type ExpectedResource } from './sample-configs';

/** Options of {@link createSampleNode}. */
export interface SampleNodeOptions {
  /** Directory to build the node in (sys/, proc/, dev/, config/); must not exist yet or be empty. */
  readonly root: string;
}

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
  readonly root: string;
  readonly sysfsRoot: string;
  readonly procRoot: string;
  readonly devRoot: string;
  /** The configuration file of each plugin. */
  readonly configs: Readonly<Record<PluginName, string>>;
  /** What each plugin should advertise. */
  readonly expected: readonly ExpectedResource[];
  /** The device that fails and recovers in the demo: the second NVIDIA GPU loses /dev/nvidia1. */
  readonly fault: DeviceFault;
}

/**
 * Builds a realistic two-socket node (NUMA 0: CPUs 0-15, NUMA 1: CPUs 16-31) under `root`: two NVIDIA H100 and
 * an AMD MI210, an Intel E810 with 6 SR-IOV VFs, two ConnectX-6 InfiniBand HCAs, an Intel FPGA (DFL), six USB
 * devices, and a configuration file per plugin.
 */
export function createSampleNode(options: SampleNodeOptions): SampleNode {
  const fixture = createSysfsFixture();
  try {
    buildMachine(fixture);
    moveInto(fixture.base, options.root);
  } finally {
    fixture.remove();
  }
  const root = options.root;
  const devRoot = join(root, 'dev');
  const configDir = join(root, 'config');
  mkdirSync(configDir, { recursive: true });
  const configs = {} as Record<PluginName, string>;
  for (const plugin of PLUGIN_NAMES) {
    const { file, content } = SAMPLE_CONFIGS[plugin];
    configs[plugin] = join(configDir, file);
    writeFileSync(configs[plugin], content);
  }
  const gpu = NVIDIA_GPUS[1] as (typeof NVIDIA_GPUS)[number];
  const node = `/dev/nvidia${gpu.minor}`;
  return {
    root,
    sysfsRoot: join(root, 'sys'),
    procRoot: join(root, 'proc'),
    devRoot,
    configs,
    expected: EXPECTED_RESOURCES,
    fault: {
      plugin: 'gpu',
      resource: 'nvidia.com/gpu',
      deviceId: gpu.uuid,
      failure: `remove ${node}`,
      recovery: `restore ${node}`,
      fail: () => removeDevNode(devRoot, node),
      recover: () => writeDevNode(devRoot, node, 195, gpu.minor),
    },
  };
}

function buildMachine(fixture: SysfsFixture): void {
  fixture.addNumaNode({ id: 0, cpus: '0-15', distances: [10, 21], memTotalKiB: 263_921_556 });
  fixture.addNumaNode({ id: 1, cpus: '16-31', distances: [21, 10], memTotalKiB: 263_921_556 });
  fixture.addPciDevice({
    address: '0000:00:00.0',
    vendor: '0x8086',
    device: '0x09a2',
    class: '0x060000',
    numaNode: 0,
  });
  const rootPort = (address: string, numaNode: number): void => {
    fixture.addPciDevice({
      address,
      vendor: '0x8086',
      device: '0x347a',
      class: '0x060400',
      driver: 'pcieport',
      numaNode,
    });
  };
  addNvidiaGpus(fixture, rootPort);
  addAmdGpu(fixture, rootPort);
  addSriovNic(fixture, rootPort);
  addRdmaHcas(fixture, rootPort);
  addFpga(fixture, rootPort);
  addUsbDevices(fixture);
}

/** Moves the built tree (relative links only) to `root`: a rename, or a copy across file systems. */
function moveInto(base: string, root: string): void {
  mkdirSync(root, { recursive: true });
  if (readdirSync(root).length > 0) throw new Error(`sample node: ${root} is not empty`);
  for (const entry of readdirSync(base)) {
    try {
      renameSync(join(base, entry), join(root, entry));
    } catch {
      cpSync(join(base, entry), join(root, entry), { recursive: true, verbatimSymlinks: true });
      rmSync(join(base, entry), { recursive: true, force: true });
    }
  }
}
