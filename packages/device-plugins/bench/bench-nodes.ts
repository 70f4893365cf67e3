import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFpgaFixture, IF_ID, NLB0, type FpgaFixture } from '@kdp/plugin-fpga/testing';
import {
  addNvidiaControlNodes,
  addNvidiaGpuFiles,
  buildNvidiaMachine,
  rootFlags,
} from '@kdp/plugin-gpu/testing';
import { addRdmaCore, addRdmaDevice, CONNECTX3, createRdmaMachine } from '@kdp/plugin-infiniband/testing';
import { addTwoPfNode, UPSTREAM_CONFIG } from '@kdp/plugin-sriov/testing';
import { addSampleMachine, createUsbFixture } from '@kdp/plugin-usb/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';

/** The five plugins, each its own binary and image. */
export const PLUGIN_NAMES = ['gpu', 'sriov', 'infiniband', 'usb', 'fpga'] as const;

/** One of {@link PLUGIN_NAMES}. */
export type PluginName = (typeof PLUGIN_NAMES)[number];

/** A fixture node a plugin binary serves: its `serve` flags and the resources it registers there. */
export interface BenchNode {
  /** `serve` flags beyond `--device-plugin-dir`: the fixture's roots and configuration. */
  readonly args: readonly string[];
  /** Every resource the binary registers on this node. */
  readonly resources: readonly string[];
  /** Deletes the fixture tree. */
  remove(): void;
}

/** The USB sample machine's three serial adapters (class ff), two pods each. */
const USB_CONFIG = 'resources:\n  - name: example.com/serial\n    match: [{ class: ff }]\n    count: 2\n';
/** An NLB0 accelerator on Intel's example interface, in `af` mode. */
const FPGA_RESOURCE = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';
/** The pools of `UPSTREAM_CONFIG` on the two-PF node. */
const SRIOV_RESOURCES = [
  'intel.com/intel_sriov_netdevice',
  'intel.com/intel_sriov_dpdk',
  'nvidia.com/mlnx_sriov_rdma',
  'nvidia.com/mlnx_rest',
];

/** `--sysfs-root` and `--dev-root`: the roots of a plugin that reads no procfs. */
const sysAndDev = (f: SysfsFixture): string[] => ['--sysfs-root', f.root, '--dev-root', f.devRoot];

/** Two DFL cards with an NLB0 accelerator, one per NUMA node. */
function addFpgaCards(f: FpgaFixture): void {
  f.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
  f.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
}

/** Writes `text` as `name` into the fixture's base directory and gives its path. */
function configFile(f: SysfsFixture, name: string, text: string): string {
  const path = join(f.base, name);
  writeFileSync(path, text);
  return path;
}

/** A fresh device-info directory for the SR-IOV plugin (it writes one file per allocated VF). */
function devinfoDir(f: SysfsFixture): string {
  const dir = join(f.base, 'devinfo');
  mkdirSync(dir);
  return dir;
}

/** The fixture node of one plugin: the machines its own conformance specs run on. */
export function buildPluginNode(plugin: PluginName): BenchNode {
  switch (plugin) {
    case 'gpu': {
      const f = buildNvidiaMachine();
      return { args: rootFlags(f), resources: ['nvidia.com/gpu'], remove: f.remove };
    }
    case 'sriov': {
      const f = createSysfsFixture();
      addTwoPfNode(f);
      const config = configFile(f, 'config.json', UPSTREAM_CONFIG);
      const args = [...rootFlags(f), '--config', config, '--devinfo-dir', devinfoDir(f)];
      return { args, resources: SRIOV_RESOURCES, remove: f.remove };
    }
    case 'infiniband': {
      const f = createRdmaMachine();
      return { args: sysAndDev(f), resources: ['rdma/hca'], remove: f.remove };
    }
    case 'usb': {
      const usb = createUsbFixture();
      addSampleMachine(usb);
      const args = [...sysAndDev(usb.sys), '--config', configFile(usb.sys, 'usb.yaml', USB_CONFIG)];
      return { args, resources: ['example.com/serial'], remove: usb.remove };
    }
    case 'fpga': {
      const f = createFpgaFixture();
      addFpgaCards(f);
      const args = [...sysAndDev(f), '--config', configFile(f, 'fpga.yaml', 'mode: af\n')];
      return { args, resources: [FPGA_RESOURCE], remove: f.remove };
    }
  }
}

/**
 * One node with devices of all five families, for `kdp-device-plugins serve`: two DFL cards, two NVIDIA
 * H100s with the driver's files, the two-PF SR-IOV node, a ConnectX-3 and the USB sample machine.
 */
export function buildAllPluginsNode(): BenchNode {
  const node = createFpgaFixture();
  addFpgaCards(node);
  addNvidiaControlNodes(node);
  const gpus = ['0000:03:00.0', '0000:83:00.0'];
  const uuids = ['GPU-5a1e0c2d-0000-4000-8000-000000000001', 'GPU-5a1e0c2d-0000-4000-8000-000000000002'];
  gpus.forEach((address, minor) => {
    const gpu = { vendor: '0x10de', device: '0x2330', class: '0x030200', driver: 'nvidia' };
    node.addPciDevice({ address, ...gpu, numaNode: minor, iommuGroup: 30 + minor });
    addNvidiaGpuFiles(node, { address, uuid: uuids[minor] ?? '', minor, model: 'NVIDIA H100 80GB HBM3' });
  });
  addTwoPfNode(node);
  addRdmaCore(node);
  // The two-PF node holds 0000:3b:00.0 already: the ConnectX-3 goes into the next slot.
  addRdmaDevice(node, { ...CONNECTX3, pci: { ...CONNECTX3.pci, address: '0000:5e:00.0' } });
  addSampleMachine(createUsbFixture(node));
  const args = [
    ...rootFlags(node),
    ...['--sriov-config', configFile(node, 'sriov.json', UPSTREAM_CONFIG)],
    ...['--sriov-devinfo-dir', devinfoDir(node)],
    ...['--usb-config', configFile(node, 'usb.yaml', USB_CONFIG)],
    ...['--fpga-config', configFile(node, 'fpga.yaml', 'mode: af\n')],
  ];
  const resources = ['nvidia.com/gpu', ...SRIOV_RESOURCES, 'rdma/hca', 'example.com/serial', FPGA_RESOURCE];
  return { args, resources, remove: node.remove };
}
