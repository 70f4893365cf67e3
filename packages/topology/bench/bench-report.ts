// The measuring and reporting half of the topology bench: per-call percentiles, a table with the target next to
// each figure, `KDP_BENCH_SHORT=1` (fewer calls) and `KDP_BENCH_JSON=FILE` (`{ "<metric>": ms, ... }`).
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** One measured case: per-call p50 and p99 over `calls` timed calls after a warm-up. */
export interface BenchRow {
  readonly name: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The p99 must stay at or under this; undefined: no target. */
  readonly targetMs?: number;
}

/** True when `KDP_BENCH_SHORT=1`: fewer calls, for a run of a few seconds (CI's regression check). */
export const benchShort = process.env['KDP_BENCH_SHORT'] === '1';

/** The p-th percentile (0–100) of ascending `sorted` samples, nearest rank. */
export function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/**
 * Times `calls` calls of `body(i)` (i counts on from the warm-up, so a body cycling through cases warms each)
 * after `warmup` untimed ones; async bodies are awaited.
 */
export async function measureCalls(
  name: string,
  options: { readonly calls: number; readonly warmup?: number; readonly targetMs?: number },
  body: (i: number) => unknown,
): Promise<BenchRow> {
  const warmup = options.warmup ?? Math.min(20, options.calls);
  for (let i = 0; i < warmup; i++) await body(i);
  const times: number[] = [];
  for (let i = 0; i < options.calls; i++) {
    const start = performance.now();
    await body(warmup + i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    name,
    calls: options.calls,
    p50Ms: nearestRank(times, 50),
    p99Ms: nearestRank(times, 99),
    ...(options.targetMs !== undefined ? { targetMs: options.targetMs } : {}),
  };
}

/** The rows as a table: case, calls, p50, p99, target (p99 ≤), ok / MISS. */
export function formatBenchRows(rows: readonly BenchRow[]): string {
  const width = Math.max(4, ...rows.map((r) => r.name.length));
  const ms = (value: number): string => value.toFixed(3).padStart(9);
  const lines = [
    `${'case'.padEnd(width)}  ${'calls'.padStart(5)}  ${'p50 ms'.padStart(9)}  ${'p99 ms'.padStart(9)}  ${'target p99'.padStart(10)}`,
  ];
  for (const row of rows) {
    const target =
      row.targetMs === undefined
        ? ''
        : `${`≤ ${row.targetMs} ms`.padStart(10)}  ${row.p99Ms <= row.targetMs ? 'ok' : 'MISS'}`;
    lines.push(
      `${row.name.padEnd(width)}  ${String(row.calls).padStart(5)}  ${ms(row.p50Ms)}  ${ms(row.p99Ms)}  ${target}`.trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Writes `{ "<case> p50": ms, "<case> p99": ms, ... }` to `KDP_BENCH_JSON` when it is set. */
export function writeBenchJson(rows: readonly BenchRow[], file = process.env['KDP_BENCH_JSON']): void {
  if (file === undefined || file === '') return;
  const metrics: Record<string, number> = {};
  for (const row of rows) {
    metrics[`${row.name} p50`] = row.p50Ms;
    metrics[`${row.name} p99`] = row.p99Ms;
  }
  writeFileSync(file, `${JSON.stringify(metrics, null, 2)}\n`);
}
