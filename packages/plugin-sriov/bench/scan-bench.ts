// `nx run @kdp/plugin-sriov:bench:scan`: the full scan alone (what runs after the change probe fired), on
// a generated node of 8 PFs × 256 VFs (2,048 VFs, addLargeSriovNode), scanned and assigned to pools as the
// plugin's scan does (one Host for the process, as the runtime gives it, the scan cache and pools kept from
// scan to scan; BENCH_FRESH_SYSFS=1: a new sysfs reader per scan instead).
import { cpus, loadavg } from 'node:os';
import { createHost, createSysfs } from '@kdp/topology';
import { createSysfsFixture } from '@kdp/topology/testing';
import { sriovConfigSchema } from '../src/config';
import { assignPools, poolIndex } from '../src/resources/assign-pools';
import { createNicScanCache, scanNics } from '../src/scan/scan-nics';
import { addLargeSriovNode, LARGE_SRIOV_CONFIG, setCarrier } from '../src/testing/sriov-node';

const PFS = 8;
const VFS = 256;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 15);
const TARGET_MS = 300;

async function main(): Promise<void> {
  const fixture = createSysfsFixture();
  try {
    const generateStart = performance.now();
    const addedPfs = addLargeSriovNode(fixture, { pfs: PFS, vfsPerPf: VFS });
    const generateMs = performance.now() - generateStart;
    const config = sriovConfigSchema.parse(JSON.parse(LARGE_SRIOV_CONFIG));
    const host = createHost({
      sysfsRoot: fixture.root,
      procRoot: fixture.procRoot,
      devRoot: fixture.devRoot,
    });
    const fresh = process.env['BENCH_FRESH_SYSFS'] === '1';
    let previous: ReadonlyMap<string, string> = new Map();
    const cache = createNicScanCache();
    const [pf] = addedPfs;
    let vfs = 0;
    let pooled = 0;
    /** Scan + pool assignment times (ms, sorted) over RUNS runs after 2 warm-ups, `before` each run. */
    const measure = async (before: (run: number) => void): Promise<number[]> => {
      const times: number[] = [];
      for (let run = 0; run < RUNS + 2; run++) {
        before(run);
        const start = performance.now();
        const sysfs = fresh ? createSysfs({ root: fixture.root }) : host.sysfs;
        const scan = await scanNics({ sysfs, procfs: host.procfs }, cache);
        const assignment = assignPools(scan, config, { defaultPrefix: 'intel.com', previous });
        previous = poolIndex(assignment);
        const ms = performance.now() - start;
        if (run >= 2) times.push(ms); // two warm-up runs (JIT, dentry cache)
        vfs = scan.functions.filter((fn) => fn.vf !== undefined).length;
        pooled = assignment.pools.reduce((n, pool) => n + pool.members.length, 0);
      }
      return times.sort((a, b) => a - b);
    };
    // Every VF read: what follows a VF added or removed, a driver bound or unbound (the cache's last read dropped).
    const full = await measure(() => (cache.last = undefined));
    // Only PF facts changed (a PF's carrier flips each run): the VFs of the last read are reused.
    const carrier = await measure((run) =>
      setCarrier(fixture, pf?.address ?? '', pf?.netdev ?? '', run % 2 === 0),
    );
    const quantile = (times: readonly number[], q: number): number =>
      times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
    const at = (times: readonly number[], q: number): string => `${quantile(times, q).toFixed(1)} ms`;
    const rows: [string, string][] = [
      ['node', `${PFS} PFs x ${VFS} VFs = ${vfs} VFs (${pooled} in 3 pools)`],
      ['fixture generation', `${generateMs.toFixed(0)} ms`],
      ['runs', `${RUNS} per kind (after 2 warm-up)`],
      ['sysfs reader', fresh ? 'a fresh createSysfs per scan' : 'one for the process (ctx.host.sysfs)'],
      ['every VF read: min / median / p90 / max', [0, 0.5, 0.9, 1].map((q) => at(full, q)).join(' / ')],
      ['PF carrier only: min / median / p90 / max', [0, 0.5, 0.9, 1].map((q) => at(carrier, q)).join(' / ')],
      ['machine', `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)} while measuring`],
      [
        'target (median, every VF read)',
        `< ${TARGET_MS} ms: ${quantile(full, 0.5) < TARGET_MS ? 'met' : 'MISSED'}`,
      ],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`${'measure'.padEnd(width)}  value\n${'-'.repeat(width)}  ${'-'.repeat(44)}\n`);
    for (const [key, value] of rows) process.stdout.write(`${key.padEnd(width)}  ${value}\n`);
  } finally {
    fixture.remove();
  }
}

void main();
