// Benchmarks of @kdp/topology, printed as a table: `npx nx run topology:bench`.
// Not a test: the numbers depend on the machine; targets are in the README.
import { performance } from 'node:perf_hooks';
import { choosePreferredAllocation } from '../src/allocation/choose-preferred-allocation';
import type { DeviceLocality, PreferredAllocationInput } from '../src/allocation/allocation-types';
import { readNumaTopology } from '../src/numa/read-numa-topology';
import { enumeratePciDevices } from '../src/pci/enumerate-pci-devices';
import { createSysfs } from '../src/sysfs/create-sysfs';
import { createSysfsFixture } from '../src/testing/sysfs-fixture';

interface Row {
  readonly case: string;
  readonly runs: number;
  readonly meanMs: number;
  readonly p99Ms: number;
}

async function measure(name: string, runs: number, body: () => unknown): Promise<Row> {
  for (let i = 0; i < Math.min(20, runs); i++) await body();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await body();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / runs;
  return {
    case: name,
    runs,
    meanMs: mean,
    p99Ms: times[Math.min(runs - 1, Math.floor(runs * 0.99))] as number,
  };
}

/** 64 devices: `sockets` NUMA nodes, each with root ports holding a switch of 4 devices. */
function gpuFarm(sockets: number): Map<string, DeviceLocality> {
  const locality = new Map<string, DeviceLocality>();
  const perSocket = 64 / sockets;
  for (let i = 0; i < 64; i++) {
    const node = Math.floor(i / perSocket);
    const port = Math.floor(i / 8);
    const sw = Math.floor(i / 4);
    locality.set(`dev-${i.toString().padStart(2, '0')}`, {
      numaNodes: [node],
      pciePath: [`root-${port}`, `up-${port}`, `down-${sw}`],
    });
  }
  return locality;
}

async function allocationRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const sockets of [2, 8]) {
    const locality = gpuFarm(sockets);
    const ids = [...locality.keys()];
    for (const size of [1, 8, 16, 33, 63]) {
      const input: PreferredAllocationInput = {
        available: ids.filter((_, i) => i % 7 !== 3),
        mustInclude: size > 1 ? ['dev-05', 'dev-60'] : [],
        size,
        locality,
      };
      rows.push(
        await measure(`choosePreferredAllocation 64 devices, ${sockets} NUMA nodes, size ${size}`, 2000, () =>
          choosePreferredAllocation(input),
        ),
      );
    }
  }
  return rows;
}

async function enumerationRows(): Promise<Row[]> {
  const fixture = createSysfsFixture();
  try {
    const sockets = 2;
    for (let node = 0; node < sockets; node++) {
      fixture.addNumaNode({ id: node, cpus: `${node * 32}-${node * 32 + 31}`, distances: [10, 21] });
    }
    let count = 0;
    for (let socket = 0; socket < sockets; socket++) {
      for (let port = 0; port < 8; port++) {
        const bus = socket * 128 + port * 16;
        const hex = (n: number) => n.toString(16).padStart(2, '0');
        const root = `0000:${hex(socket * 128)}:${hex(port + 1)}.0`;
        fixture.addPciDevice({
          address: root,
          class: '0x060400',
          driver: 'pcieport',
          numaNode: socket,
          iommuGroup: count,
        });
        count++;
        // A NIC PF per port with 30 VFs: 31 functions.
        const pf = `0000:${hex(bus + 1)}:00.0`;
        fixture.addPciDevice({
          address: pf,
          parent: root,
          vendor: '0x15b3',
          device: '0x101b',
          class: '0x020700',
          driver: 'mlx5_core',
          numaNode: socket,
          iommuGroup: count++,
          sriovTotalVfs: 64,
        });
        for (let vf = 0; vf < 30; vf++) {
          fixture.addPciDevice({
            address: `0000:${hex(bus + 1)}:${hex(1 + Math.floor(vf / 8))}.${vf % 8}`,
            parent: root,
            vendor: '0x15b3',
            device: '0x101c',
            class: '0x020700',
            driver: 'mlx5_core',
            numaNode: socket,
            iommuGroup: count++,
            physfn: pf,
            vfIndex: vf,
          });
        }
      }
    }
    const sysfs = createSysfs({ root: fixture.root });
    const numa = await readNumaTopology(sysfs);
    const functions = (await sysfs.list('bus/pci/devices')).length;
    return [
      await measure('readNumaTopology, 2 nodes', 50, () => readNumaTopology(sysfs)),
      await measure(`enumeratePciDevices, ${functions} functions (NUMA given)`, 10, () =>
        enumeratePciDevices(sysfs, { numa }),
      ),
    ];
  } finally {
    fixture.remove();
  }
}

async function main(): Promise<void> {
  const rows = [...(await allocationRows()), ...(await enumerationRows())];
  const width = Math.max(...rows.map((r) => r.case.length));
  console.log(
    `${'case'.padEnd(width)}  ${'runs'.padStart(5)}  ${'mean ms'.padStart(9)}  ${'p99 ms'.padStart(9)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.case.padEnd(width)}  ${String(row.runs).padStart(5)}  ${row.meanMs.toFixed(3).padStart(9)}  ${row.p99Ms
        .toFixed(3)
        .padStart(9)}`,
    );
  }
}

void main();
