// Discovery benchmark: a generated node of 8 PFs × 256 VFs (2,048 VFs), scanned and assigned to pools as the
// plugin's scan does (one Host for the process, as the runtime gives it, the functions' directories and
// pools kept from scan to scan; BENCH_FRESH_SYSFS=1: a new sysfs reader per scan instead).
import { cpus, loadavg } from 'node:os';
import { createHost, createSysfs } from '@kdp/topology';
import { createSysfsFixture } from '@kdp/topology/testing';
import { sriovConfigSchema } from '../src/config';
import { assignPools, poolIndex } from '../src/resources/assign-pools';
import { scanNics } from '../src/scan/scan-nics';
import { addSriovPf, type FixturePf } from '../src/testing';

const PFS = 8;
const VFS = 256;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 15);
const TARGET_MS = 300;

/** VF i of the PF at <bus>:00.0 with offset 8, stride 1 (the routing-ID formula). */
function vfAddress(bus: number, i: number): string {
  const rid = (bus << 8) + 8 + i;
  const hex = (n: number): string => n.toString(16).padStart(2, '0');
  return `0000:${hex(rid >> 8)}:${hex((rid >> 3) & 0x1f)}.${rid & 7}`;
}

async function main(): Promise<void> {
  const fixture = createSysfsFixture();
  try {
    const generateStart = performance.now();
    fixture.addNumaNode({ id: 0, cpus: '0-31' });
    fixture.addNumaNode({ id: 1, cpus: '32-63' });
    for (let p = 0; p < PFS; p++) {
      const bus = (0x10 + p * 0x10).toString(16).padStart(2, '0');
      const pf: FixturePf = {
        address: `0000:${bus}:00.0`,
        rootPort: `0000:${(0x10 + p * 0x10 - 1).toString(16).padStart(2, '0')}:00.0`,
        vendor: '8086',
        device: '1593',
        vfDevice: '1889',
        driver: 'ice',
        netdev: `ens${p}f0`,
        numaNode: p < PFS / 2 ? 0 : 1,
        totalVfs: VFS,
        offsetStride: [8, 1],
        vfs: Array.from({ length: VFS }, (_, i) => ({
          address: vfAddress(0x10 + p * 0x10, i),
          iommuGroup: 1000 + p * VFS + i,
          ...(i % 2 === 0 ? { driver: 'iavf', netdev: `ens${p}f0v${i}` } : { driver: 'vfio-pci' }),
        })),
      };
      addSriovPf(fixture, pf);
    }
    const generateMs = performance.now() - generateStart;
    const config = sriovConfigSchema.parse({
      resourceList: [
        {
          resourceName: 'e810_netdev',
          selectors: { drivers: ['iavf'], pfNames: ['ens0f0#0-127', 'ens1f0', 'ens2f0'] },
        },
        { resourceName: 'e810_dpdk', selectors: { drivers: ['vfio-pci'] } },
        { resourceName: 'e810_rest', selectors: { vendors: ['8086'], devices: ['1889'] } },
      ],
    });
    const host = createHost({
      sysfsRoot: fixture.root,
      procRoot: fixture.procRoot,
      devRoot: fixture.devRoot,
    });
    const fresh = process.env['BENCH_FRESH_SYSFS'] === '1';
    let previous: ReadonlyMap<string, string> = new Map();
    const knownPaths = new Map<string, string>();
    const times: number[] = [];
    let vfs = 0;
    let pooled = 0;
    for (let run = 0; run < RUNS + 2; run++) {
      const start = performance.now();
      const sysfs = fresh ? createSysfs({ root: fixture.root }) : host.sysfs;
      const scan = await scanNics({ sysfs, procfs: host.procfs }, knownPaths);
      const assignment = assignPools(scan, config, { defaultPrefix: 'intel.com', previous });
      previous = poolIndex(assignment);
      const ms = performance.now() - start;
      if (run >= 2) times.push(ms); // two warm-up runs (JIT, dentry cache)
      vfs = scan.functions.filter((fn) => fn.vf !== undefined).length;
      pooled = assignment.pools.reduce((n, pool) => n + pool.members.length, 0);
    }
    times.sort((a, b) => a - b);
    const at = (q: number): number =>
      times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
    const rows: [string, string][] = [
      ['node', `${PFS} PFs x ${VFS} VFs = ${vfs} VFs (${pooled} in 3 pools)`],
      ['fixture generation', `${generateMs.toFixed(0)} ms`],
      ['runs', `${RUNS} (after 2 warm-up)`],
      ['sysfs reader', fresh ? 'a fresh createSysfs per scan' : 'one for the process (ctx.host.sysfs)'],
      ['full scan + pool assignment min', `${at(0).toFixed(1)} ms`],
      ['full scan + pool assignment median', `${at(0.5).toFixed(1)} ms`],
      ['full scan + pool assignment p90', `${at(0.9).toFixed(1)} ms`],
      ['full scan + pool assignment max', `${(times[times.length - 1] as number).toFixed(1)} ms`],
      ['machine', `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)} while measuring`],
      ['target (median)', `< ${TARGET_MS} ms: ${at(0.5) < TARGET_MS ? 'met' : 'MISSED'}`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`${'measure'.padEnd(width)}  value\n${'-'.repeat(width)}  ${'-'.repeat(40)}\n`);
    for (const [key, value] of rows) process.stdout.write(`${key.padEnd(width)}  ${value}\n`);
  } finally {
    fixture.remove();
  }
}

void main();
