// Benchmarks of @kdp/topology, printed as a table with the target next to each figure: `npx nx run topology:bench`.
// Not a test: the numbers depend on the machine. KDP_BENCH_SHORT=1: a few seconds; KDP_BENCH_JSON=FILE: the
// figures as `{ "<case> p50": ms, "<case> p99": ms, ... }`.
import { choosePreferredAllocation } from '../src/allocation/choose-preferred-allocation';
import type { DeviceLocality, PreferredAllocationInput } from '../src/allocation/allocation-types';
import { readNumaTopology } from '../src/numa/read-numa-topology';
import { enumeratePciDevices } from '../src/pci/enumerate-pci-devices';
import { createSysfs } from '../src/sysfs/create-sysfs';
import { createSysfsFixture } from '../src/testing/sysfs-fixture';
import { benchShort, type BenchRow, formatBenchRows, measureCalls, writeBenchJson } from './bench-report';
import { scaleQuestion, scaleTopology } from './scale-topology';

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

async function allocationRows(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
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
        await measureCalls(
          `choosePreferredAllocation 64 devices, ${sockets} NUMA nodes, size ${size}`,
          { calls: benchShort ? 200 : 2000, targetMs: 1 },
          () => choosePreferredAllocation(input),
        ),
      );
    }
  }
  return rows;
}

/** Targets of issue 30 by candidate count: 2,048 (VFs) ≤ 5 ms per call, 10,000 ≤ 50 ms; fewer within 5 ms. */
const scaleTargetMs = (count: number): number => (count <= 2048 ? 5 : 50);

/** Per-call figures at 100, 1,000, 2,048 and 10,000 candidates (4 and 8 NUMA nodes) over `scaleQuestion`'s mix. */
async function scaleRows(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [count, numaNodes] of [
    [100, 2],
    [1000, 4],
    [2048, 4],
    [10_000, 4],
    [10_000, 8],
  ] as const) {
    const topology = scaleTopology(count, numaNodes);
    // 27 questions (9 sizes × 3 must-include variants): every one once in short mode, 10 (5 at 10,000) times.
    const calls = benchShort ? 27 : count >= 10_000 ? 135 : 270;
    rows.push(
      await measureCalls(
        `choosePreferredAllocation ${count} candidates, ${numaNodes} NUMA nodes, size 1…7n/8`,
        { calls, warmup: benchShort ? 9 : 27, targetMs: scaleTargetMs(count) },
        (i) => choosePreferredAllocation(scaleQuestion(topology, i)),
      ),
    );
  }
  return rows;
}

async function enumerationRows(): Promise<BenchRow[]> {
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
      await measureCalls('readNumaTopology, 2 nodes', { calls: benchShort ? 10 : 50 }, () =>
        readNumaTopology(sysfs),
      ),
      await measureCalls(
        `enumeratePciDevices, ${functions} functions (NUMA given)`,
        { calls: benchShort ? 3 : 10, warmup: benchShort ? 1 : 10, targetMs: 1000 },
        () => enumeratePciDevices(sysfs, { numa }),
      ),
      // As the GPU plugin scans this NIC node: every function's vendor, class and driver, none read in full.
      await measureCalls(
        `enumeratePciDevices, ${functions} functions, display class selected (none here)`,
        { calls: benchShort ? 3 : 10, warmup: benchShort ? 1 : 10, targetMs: 1000 },
        () => enumeratePciDevices(sysfs, { numa, select: (pci) => pci.class?.startsWith('0x03') === true }),
      ),
    ];
  } finally {
    fixture.remove();
  }
}

async function main(): Promise<void> {
  const rows = [...(await allocationRows()), ...(await scaleRows()), ...(await enumerationRows())];
  process.stdout.write(formatBenchRows(rows));
  writeBenchJson(rows);
}

void main();
