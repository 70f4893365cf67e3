import { createHash } from 'node:crypto';
import { createSysfsFixture, type PciDeviceSpec, type SysfsFixture } from '@kdp/topology/testing';

/** One port of a fixture RDMA device. */
export interface RdmaPortSpec {
  readonly state?: string;
  readonly physState?: string;
  readonly linkLayer?: string;
  readonly rate?: string;
}

/** A fixture RDMA device: its PCI function, /sys/class/infiniband entry, char devices and /dev nodes. */
export interface RdmaDeviceSpec {
  readonly name: string;
  readonly pci: PciDeviceSpec;
  readonly nodeGuid?: string;
  readonly fwVer?: string;
  readonly ports: readonly RdmaPortSpec[];
  /** N of uverbsN. */
  readonly uverbs?: number;
  /** N of umadN (and issmN) for each port, in port order. */
  readonly umad?: readonly number[];
  /** Whether issm nodes exist (default true when umad is given). */
  readonly issm?: boolean;
  readonly netdevs?: readonly string[];
}

/** One character device of a fixture RDMA device: its class entry and its /dev/infiniband node. */
export interface RdmaCharNode {
  /** `infiniband_verbs` or `infiniband_mad`. */
  readonly className: string;
  /** `uverbs0`, `umad1`, `issm1`. */
  readonly name: string;
  readonly major: number;
  readonly minor: number;
  /** The port a umad/issm node serves. */
  readonly port?: number;
}

/** The character devices `addRdmaDevice` creates for a spec (minors as the kernel numbers them). */
export function rdmaCharNodes(spec: RdmaDeviceSpec): RdmaCharNode[] {
  const nodes: RdmaCharNode[] = [];
  if (spec.uverbs !== undefined) {
    const minor = 192 + spec.uverbs;
    nodes.push({ className: 'infiniband_verbs', name: `uverbs${spec.uverbs}`, major: 231, minor });
  }
  (spec.umad ?? []).forEach((n, index) => {
    for (const kind of spec.issm === false ? ['umad'] : ['umad', 'issm']) {
      const minor = (kind === 'umad' ? 0 : 64) + n;
      nodes.push({ className: 'infiniband_mad', name: `${kind}${n}`, major: 231, minor, port: index + 1 });
    }
  });
  return nodes;
}

/** Adds the RDMA classes and /dev/infiniband nodes of one device to a sysfs fixture (real links, as the kernel). */
export function addRdmaDevice(fixture: SysfsFixture, spec: RdmaDeviceSpec): void {
  fixture.addPciDevice(spec.pci);
  const pciAddress = spec.pci.address;
  const attributes: Record<string, string> = {
    node_guid: spec.nodeGuid ?? '0000:0000:0000:0000',
    node_type: '1: CA',
    fw_ver: spec.fwVer ?? '1.0.0',
  };
  spec.ports.forEach((port, index) => {
    const dir = `ports/${index + 1}`;
    attributes[`${dir}/state`] = port.state ?? '4: ACTIVE';
    attributes[`${dir}/phys_state`] = port.physState ?? '5: LinkUp';
    attributes[`${dir}/link_layer`] = port.linkLayer ?? 'InfiniBand';
    attributes[`${dir}/rate`] = port.rate ?? '100 Gb/sec (4X EDR)';
  });
  fixture.addClassDevice('infiniband', spec.name, { pciAddress, attributes });
  for (const node of rdmaCharNodes(spec)) {
    fixture.addClassDevice(node.className, node.name, {
      pciAddress,
      dev: `${node.major}:${node.minor}`,
      attributes: { ibdev: spec.name, ...(node.port !== undefined ? { port: String(node.port) } : {}) },
    });
    fixture.addDevNode(`/dev/infiniband/${node.name}`, node.major, node.minor);
  }
  const infiniband = (spec.ports[0]?.linkLayer ?? 'InfiniBand') === 'InfiniBand';
  for (const netdev of spec.netdevs ?? []) {
    fixture.addClassDevice('net', netdev, {
      pciAddress,
      attributes: { operstate: 'up', address: fixtureHardwareAddress(netdev, infiniband) },
    });
  }
}

/**
 * The hardware address the fixture gives netdev `name`, from the name's SHA-256: 20 bytes for an IPoIB interface
 * (`infiniband`: QPN and port GID, as the kernel shows them), else a locally administered 6-byte MAC.
 */
export function fixtureHardwareAddress(name: string, infiniband: boolean): string {
  const bytes = [...createHash('sha256').update(name).digest()].map((b) => b.toString(16).padStart(2, '0'));
  return (
    infiniband ? ['80', '00', '02', '08', 'fe', '80', ...bytes.slice(0, 14)] : ['02', ...bytes.slice(0, 5)]
  ).join(':');
}

/** Sets one port's state and phys_state in the fixture. */
export function setPortState(
  fixture: SysfsFixture,
  ibdev: string,
  port: number,
  state: string,
  physState: string,
): void {
  fixture.write(`class/infiniband/${ibdev}/ports/${port}/state`, `${state}\n`);
  fixture.write(`class/infiniband/${ibdev}/ports/${port}/phys_state`, `${physState}\n`);
}

/** A ConnectX-3 (mlx4_0, 0000:3b:00.0) with two InfiniBand ports on NUMA node 0, netdevs ib0 and ib1. */
export const CONNECTX3: RdmaDeviceSpec = {
  name: 'mlx4_0',
  pci: {
    address: '0000:3b:00.0',
    vendor: '0x15b3',
    device: '0x1007',
    class: '0x020700',
    driver: 'mlx4_core',
    numaNode: 0,
  },
  nodeGuid: 'e41d:2d03:0060:7a10',
  fwVer: '2.42.5000',
  ports: [{ rate: '56 Gb/sec (4X FDR)' }, { rate: '56 Gb/sec (4X FDR)' }],
  uverbs: 0,
  umad: [0, 1],
  netdevs: ['ib0', 'ib1'],
};

/** What every RDMA host has besides its devices: the classes' ABI versions and /dev/infiniband/rdma_cm. */
export function addRdmaCore(fixture: SysfsFixture): void {
  fixture.write('class/infiniband_verbs/abi_version', '6\n');
  fixture.write('class/infiniband_mad/abi_version', '5\n');
  fixture.addDevNode('/dev/infiniband/rdma_cm', 10, 58);
}

/**
 * A two-socket host with: a ConnectX-3 (mlx4_0) with two InfiniBand ports on node 0; a ConnectX-5 RoCE
 * function (mlx5_0) on node 1; an Omni-Path HFI (hfi1_0, with /dev/hfi1_0) on node 0; an Intel E810 (irdma0,
 * RoCE, no issm) on node 1; a Broadcom function (bnxt_re0) whose uverbs device is missing; and rdma_cm.
 */
export function createRdmaMachine(): SysfsFixture {
  const fixture = createSysfsFixture();
  fixture.addNumaNode({ id: 0, cpus: '0-15', distances: [10, 21] });
  fixture.addNumaNode({ id: 1, cpus: '16-31', distances: [21, 10] });
  addRdmaCore(fixture);
  addRdmaDevice(fixture, CONNECTX3);
  addRdmaDevice(fixture, {
    name: 'mlx5_0',
    pci: {
      address: '0000:d8:00.0',
      vendor: '0x15b3',
      device: '0x1017',
      class: '0x020000',
      driver: 'mlx5_core',
      numaNode: 1,
    },
    nodeGuid: 'b83f:d203:00a1:5c2e',
    fwVer: '22.36.1010',
    ports: [{ linkLayer: 'Ethernet', rate: '100 Gb/sec (2X HDR)' }],
    uverbs: 1,
    umad: [2],
    netdevs: ['ens6f0np0'],
  });
  addRdmaDevice(fixture, {
    name: 'hfi1_0',
    pci: {
      address: '0000:5e:00.0',
      vendor: '0x8086',
      device: '0x24f0',
      class: '0x020800',
      driver: 'hfi1',
      numaNode: 0,
    },
    nodeGuid: '0011:7501:0179:e2a4',
    fwVer: '1.27.0',
    ports: [{ rate: '100 Gb/sec (4X EDR)' }],
    uverbs: 2,
    umad: [3],
  });
  fixture.addDevNode('/dev/hfi1_0', 241, 0);
  addRdmaDevice(fixture, {
    name: 'irdma0',
    pci: {
      address: '0000:af:00.0',
      vendor: '0x8086',
      device: '0x1593',
      class: '0x020000',
      driver: 'ice',
      numaNode: 1,
    },
    fwVer: '1.57',
    ports: [{ linkLayer: 'Ethernet', rate: '25 Gb/sec (1X EDR)' }],
    uverbs: 3,
    umad: [4],
    issm: false,
    netdevs: ['ens801f0'],
  });
  addRdmaDevice(fixture, {
    name: 'bnxt_re0',
    pci: {
      address: '0000:86:00.0',
      vendor: '0x14e4',
      device: '0x16d7',
      class: '0x020000',
      driver: 'bnxt_en',
      numaNode: 1,
    },
    ports: [{ linkLayer: 'Ethernet', rate: '25 Gb/sec (1X EDR)' }],
    netdevs: ['ens2f0'],
  });
  return fixture;
}

/**
 * A configuration in the exact shape of the example in k8s-rdma-shared-dev-plugin's README: two shared
 * resources selecting ConnectX-5 (15b3:1017), the second only through interfaces ib0/ib1.
 */
export const UPSTREAM_CONFIG_JSON = `{
  "periodicUpdateInterval": 300,
  "configList": [{
      "resourceName": "hca_shared_devices_a",
      "rdmaHcaMax": 1000,
      "selectors": {
        "vendors": ["15b3"],
        "deviceIDs": ["1017"]
      }
    },
    {
      "resourceName": "hca_shared_devices_b",
      "rdmaHcaMax": 500,
      "selectors": {
        "vendors": ["15b3"],
        "deviceIDs": ["1017"],
        "ifNames": ["ib0", "ib1"]
      }
    }
  ]
}
`;
