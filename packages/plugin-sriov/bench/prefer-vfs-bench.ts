// The preferred-allocation half of `nx run @kdp/plugin-sriov:bench`: `preferVfs` per call at 100, 1,000, 2,048
// and 10,000 VFs (PFs of 64 VFs, two per root port, spread over NUMA nodes), both policies, p50/p99 next to the
// target of issue 30 (2,048 VFs ≤ 5 ms, 10,000 ≤ 50 ms). KDP_BENCH_SHORT=1: every question once.
import { performance } from 'node:perf_hooks';
import { percentile } from '@kdp/kubelet-sim/testing';
import { preferVfs, type PreferVfsInput, type VfPlacement } from '../src/allocate/prefer-vfs';

/** One measured case of {@link preferVfsRows}. */
export interface PreferVfsRow {
  readonly name: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly targetMs: number;
}

/** `count` VFs: PFs of 64 VFs (25 at 100 VFs), two PFs per root port, every other port behind a switch. */
function vfPool(count: number, numaNodes: number): VfPlacement[] {
  const perPf = count <= 100 ? 25 : 64;
  const pfs = Math.ceil(count / perPf);
  const pfsPerNode = Math.ceil(pfs / numaNodes);
  return Array.from({ length: count }, (_, i) => {
    const pfIndex = Math.floor(i / perPf);
    const port = Math.floor(pfIndex / 2);
    const pf = `0000:${(0x10 + pfIndex).toString(16)}:00.0`;
    return {
      id: `0000:${(0x10 + pfIndex).toString(16)}:${(1 + ((i % perPf) >> 3)).toString(16).padStart(2, '0')}.${i % 8}`,
      numaNode: Math.floor(pfIndex / pfsPerNode),
      pciePath: port % 2 === 0 ? [`root-${port}`] : [`root-${port}`, `up-${port}`, `down-${pfIndex}`],
      pf,
      index: i % perPf,
    };
  });
}

/** The i-th question: sizes 1 to n/2 in turn, with no, one or two must-include VFs (two on different nodes). */
function question(pool: readonly VfPlacement[], policy: PreferVfsInput['policy'], i: number): PreferVfsInput {
  const n = pool.length;
  const sizes = [1, 2, 4, 8, 16, Math.floor(n / 8), Math.floor(n / 4), Math.floor(n / 2)];
  const id = (k: number): string => (pool[k % n] as VfPlacement).id;
  const variant = Math.floor(i / sizes.length) % 3;
  return {
    available: pool,
    mustInclude: variant === 0 ? [] : variant === 1 ? [id(i * 7919)] : [id(3), id(n - 3)],
    size: sizes[i % sizes.length] as number,
    policy,
  };
}

/** Measures `preferVfs` per call; `short`: each of the 24 questions once after a short warm-up. */
export function preferVfsRows(short: boolean): PreferVfsRow[] {
  const rows: PreferVfsRow[] = [];
  for (const [count, numaNodes] of [
    [100, 2],
    [1000, 4],
    [2048, 4],
    [10_000, 8],
  ] as const) {
    const pool = vfPool(count, numaNodes);
    for (const policy of ['pack', 'spread'] as const) {
      const calls = short ? 24 : count >= 10_000 ? 120 : 240;
      const warmup = short ? 8 : 24;
      for (let i = 0; i < warmup; i++) preferVfs(question(pool, policy, i));
      const times: number[] = [];
      for (let i = 0; i < calls; i++) {
        const input = question(pool, policy, warmup + i);
        const start = performance.now();
        preferVfs(input);
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      rows.push({
        name: `preferVfs ${policy}, ${count} VFs, ${numaNodes} NUMA nodes, size 1…n/2`,
        calls,
        p50Ms: percentile(times, 50),
        p99Ms: percentile(times, 99),
        targetMs: count <= 2048 ? 5 : 50,
      });
    }
  }
  return rows;
}

/** The rows as a table: case, calls, p50, p99, target (p99 ≤), ok / MISS. */
export function formatPreferVfsRows(rows: readonly PreferVfsRow[]): string {
  const width = Math.max(...rows.map((r) => r.name.length));
  const ms = (value: number): string => value.toFixed(3).padStart(8);
  const head = `${'PREFERRED ALLOCATION'.padEnd(width)}  CALLS    P50 ms    P99 ms  TARGET P99`;
  const lines = rows.map(
    (r) =>
      `${r.name.padEnd(width)}  ${String(r.calls).padStart(5)}  ${ms(r.p50Ms)}  ${ms(r.p99Ms)}  ${`≤ ${r.targetMs} ms`.padStart(10)}  ${r.p99Ms <= r.targetMs ? 'ok' : 'MISS'}`,
  );
  return `${[head, ...lines].join('\n')}\n`;
}
