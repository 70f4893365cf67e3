import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFpgaFixture, IF_ID, NLB0 } from '@kdp/plugin-fpga/testing';
import {
  addNvidiaControlNodes,
  addNvidiaGpuFiles,
  buildNvidiaMachine,
  NVIDIA_UUIDS,
  rootFlags,
} from '@kdp/plugin-gpu/testing';
import { addRdmaCore, addRdmaDevice, CONNECTX3, createRdmaMachine } from '@kdp/plugin-infiniband/testing';
import { addTwoPfNode, UPSTREAM_CONFIG } from '@kdp/plugin-sriov/testing';
import { addSampleMachine, createUsbFixture } from '@kdp/plugin-usb/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';

// The fixture nodes the images run on: each plugin's own fixture builders (its `@kdp/plugin-<name>/testing`
// entry, the trees its conformance specs run on; jest resolves them to their sources through the workspace's
// `@kdp/source` condition), mounted into the container at the same paths.

/** A fixture node for one image: what to mount into its container and how to start it. */
export interface NodeFixture {
  /** Host directories bind-mounted read-only at the same path in the container (the fixture tree). */
  readonly readOnly: readonly string[];
  /** Host directories bind-mounted read-write at the same path (e.g. the SR-IOV devinfo dir). */
  readonly writable: readonly string[];
  /** `serve` flags beyond `--device-plugin-dir`: the fixture's roots and configuration. */
  readonly args: readonly string[];
  /** `discover` flags: {@link args} less those that apply to serve only (SR-IOV's `--devinfo-dir`). */
  readonly discoverArgs: readonly string[];
  /** The resource the conformance suite checks. */
  readonly resource: string;
  /** Deletes the fixture tree. */
  remove(): void;
}

/** A fixture node with devices of several plugins, for the all-in-one binary. */
export interface MultiPluginNode extends NodeFixture {
  /** Every resource the node offers, with its number of healthy devices (the conformance resource among them). */
  readonly resources: Readonly<Record<string, number>>;
}

/** The single plugins the fixture nodes below are for. */
export type PluginName = 'gpu' | 'sriov' | 'infiniband' | 'usb' | 'fpga';

/** A USB configuration: the three serial adapters of the sample machine, two pods per adapter. */
const USB_CONFIG = 'resources:\n  - name: example.com/serial\n    match: [{ class: ff }]\n    count: 2\n';
/** The FPGA resource of an NLB0 accelerator on Intel's example interface, in `af` mode. */
const FPGA_AF_RESOURCE = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';

/** `--sysfs-root` and `--dev-root` of a fixture: the roots of a plugin that does not read procfs. */
const sysAndDevFlags = (f: SysfsFixture): string[] => ['--sysfs-root', f.root, '--dev-root', f.devRoot];

/** Builds the fixture node of one plugin (`gpu`, `sriov`, `infiniband`, `usb`, `fpga`). */
export function buildNodeFixture(plugin: PluginName): NodeFixture {
  switch (plugin) {
    case 'gpu': {
      const f = buildNvidiaMachine();
      const args = rootFlags(f);
      return {
        readOnly: [f.base],
        writable: [],
        args,
        discoverArgs: args,
        resource: 'nvidia.com/gpu',
        remove: f.remove,
      };
    }
    case 'sriov': {
      const f = createSysfsFixture();
      addTwoPfNode(f);
      writeFileSync(join(f.base, 'config.json'), UPSTREAM_CONFIG);
      const devinfo = join(f.base, 'devinfo');
      mkdirSync(devinfo);
      const discoverArgs = [...rootFlags(f), '--config', join(f.base, 'config.json')];
      const args = [...discoverArgs, '--devinfo-dir', devinfo];
      const resource = 'intel.com/intel_sriov_dpdk';
      return { readOnly: [f.base], writable: [devinfo], args, discoverArgs, resource, remove: f.remove };
    }
    case 'infiniband': {
      const f = createRdmaMachine();
      const args = sysAndDevFlags(f);
      return {
        readOnly: [f.base],
        writable: [],
        args,
        discoverArgs: args,
        resource: 'rdma/hca',
        remove: f.remove,
      };
    }
    case 'usb': {
      const usb = createUsbFixture();
      addSampleMachine(usb);
      const config = join(usb.sys.base, 'usb.yaml');
      writeFileSync(config, USB_CONFIG);
      const args = [...sysAndDevFlags(usb.sys), '--config', config];
      const resource = 'example.com/serial';
      return {
        readOnly: [usb.sys.base],
        writable: [],
        args,
        discoverArgs: args,
        resource,
        remove: usb.remove,
      };
    }
    case 'fpga': {
      const f = createFpgaFixture();
      f.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
      f.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
      const config = join(f.base, 'fpga.yaml');
      writeFileSync(config, 'mode: af\n');
      const args = [...sysAndDevFlags(f), '--config', config];
      const resource = FPGA_AF_RESOURCE;
      return { readOnly: [f.base], writable: [], args, discoverArgs: args, resource, remove: f.remove };
    }
  }
}

/**
 * One node with devices of four families, for `kdp-device-plugins serve --plugins gpu,infiniband,usb,fpga`
 * (SR-IOV left out: its flags must then be absent): the FPGA fixture machine (two NUMA nodes) with two DFL
 * cards, two NVIDIA H100s with the driver's files, a ConnectX-3 with two InfiniBand ports, and the USB sample
 * machine, each added by its plugin's own testing helpers. The conformance suite checks the GPU resource.
 */
export function buildMultiPluginNode(): MultiPluginNode {
  const node = createFpgaFixture();
  node.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
  node.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });

  const gpus = [
    { address: '0000:03:00.0', numaNode: 0 },
    { address: '0000:83:00.0', numaNode: 1 },
  ] as const;
  addNvidiaControlNodes(node);
  gpus.forEach(({ address, numaNode }, minor) => {
    node.addPciDevice({
      address,
      vendor: '0x10de',
      device: '0x2330',
      class: '0x030200',
      driver: 'nvidia',
      numaNode,
      iommuGroup: 30 + minor,
    });
    addNvidiaGpuFiles(node, { address, uuid: NVIDIA_UUIDS[address], minor, model: 'NVIDIA H100 80GB HBM3' });
  });

  addRdmaCore(node);
  addRdmaDevice(node, CONNECTX3);

  addSampleMachine(createUsbFixture(node));

  writeFileSync(join(node.base, 'usb.yaml'), USB_CONFIG);
  writeFileSync(join(node.base, 'fpga.yaml'), 'mode: af\n');
  const args = [
    '--plugins',
    'gpu,infiniband,usb,fpga',
    ...rootFlags(node),
    '--usb-config',
    join(node.base, 'usb.yaml'),
    '--fpga-config',
    join(node.base, 'fpga.yaml'),
  ];
  return {
    readOnly: [node.base],
    writable: [],
    args,
    discoverArgs: args,
    resource: 'nvidia.com/gpu',
    resources: {
      'nvidia.com/gpu': gpus.length,
      'rdma/hca': 1,
      'example.com/serial': 6,
      [FPGA_AF_RESOURCE]: 2,
    },
    remove: node.remove,
  };
}
