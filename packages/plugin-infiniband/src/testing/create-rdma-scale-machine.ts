import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addRdmaCore, addRdmaDevice, type RdmaDeviceSpec } from './rdma-machine';

/** Options of {@link createRdmaScaleMachine}. */
export interface RdmaScaleMachineOptions {
  /** How many HCAs (default 8, the benchmark's scale point); at most 64. */
  readonly hcas?: number;
  /** NUMA nodes the HCAs are spread over in equal blocks (default 2). */
  readonly numaNodes?: number;
}

/** A fixture with many HCAs, and the specs it was built from (for hot-plug and port changes). */
export interface RdmaScaleMachine {
  readonly fixture: SysfsFixture;
  /** One ConnectX-6 per HCA: `mlx5_<n>` at `0000:<bus>:00.0`, uverbs<n>, umad<n>/issm<n>, interface `ib<n>`. */
  readonly hcas: readonly RdmaDeviceSpec[];
}

/**
 * A GPU-server-like host: `hcas` single-port InfiniBand ConnectX-6 adapters (15b3:101b), split in equal blocks
 * over `numaNodes` nodes, two per PCIe switch (so the PCIe distance matters within a node), plus rdma_cm.
 */
export function createRdmaScaleMachine(options: RdmaScaleMachineOptions = {}): RdmaScaleMachine {
  const count = options.hcas ?? 8;
  const numaNodes = options.numaNodes ?? 2;
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new RangeError(`hcas: 1 … 64, got ${count}`);
  if (!Number.isInteger(numaNodes) || numaNodes < 1 || numaNodes > count) {
    throw new RangeError(`numaNodes: 1 … hcas, got ${numaNodes}`);
  }
  const fixture = createSysfsFixture();
  const perNode = Math.ceil(count / numaNodes);
  for (let id = 0; id < numaNodes; id++) {
    const distances = Array.from({ length: numaNodes }, (_, other) => (other === id ? 10 : 21));
    fixture.addNumaNode({ id, cpus: `${id * 16}-${id * 16 + 15}`, distances });
  }
  addRdmaCore(fixture);
  const hcas: RdmaDeviceSpec[] = [];
  for (let n = 0; n < count; n++) {
    const numaNode = Math.floor(n / perNode);
    const hex = (value: number): string => value.toString(16).padStart(2, '0');
    // Root port 0000:<r>:00.0 → switch port 0000:<r+1>:00.0 → HCAs on buses <r+2> and <r+3>.
    const root = 0x10 + Math.floor(n / 2) * 4;
    const switchPort = `0000:${hex(root + 1)}:00.0`;
    if (n % 2 === 0) {
      fixture.addPciDevice({ address: `0000:${hex(root)}:00.0`, class: '0x060400', numaNode });
      fixture.addPciDevice({
        address: switchPort,
        parent: `0000:${hex(root)}:00.0`,
        class: '0x060400',
        numaNode,
      });
    }
    const spec: RdmaDeviceSpec = {
      name: `mlx5_${n}`,
      pci: {
        address: `0000:${hex(root + 2 + (n % 2))}:00.0`,
        parent: switchPort,
        vendor: '0x15b3',
        device: '0x101b',
        class: '0x020700',
        driver: 'mlx5_core',
        numaNode,
      },
      nodeGuid: `b83f:d203:00c0:${n.toString(16).padStart(4, '0')}`,
      fwVer: '20.39.1002',
      ports: [{ rate: '200 Gb/sec (4X HDR)' }],
      uverbs: n,
      umad: [n],
      netdevs: [`ib${n}`],
    };
    addRdmaDevice(fixture, spec);
    hcas.push(spec);
  }
  return { fixture, hcas };
}
