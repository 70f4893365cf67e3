import type { BenchMetrics } from './bench-metrics';

/** How far a figure may move from its baseline before it counts as a regression. */
export const REGRESSION_FACTOR = 2;

/**
 * A time in milliseconds must also grow by more than this to count: below a millisecond a median moves with
 * timer resolution and JIT tiers, not with the code (0.01 ms at 0.03 ms is noise; at 2.5 ms it is a regression).
 */
export const NOISE_FLOOR_MS = 1;

/**
 * The same for a tail (`p95`, `p99`, `max`): one scavenge or one preemption in a short run puts a few
 * milliseconds on the slowest calls (measured: a 0.33 ms p99 read 1.5 ms on a fresh machine, the code unchanged).
 */
export const TAIL_NOISE_FLOOR_MS = 5;

/** Whether a time is a tail of its distribution: a p95 or higher percentile, or a maximum. */
export function isTail(metric: string): boolean {
  return /([ ._]p9\d|[Pp]9\dMs|[Mm]ax(Ms|_ms)?)$/.test(metric);
}

/** Whether a metric is a time in milliseconds: `…Ms`, `…_ms`, or a percentile (`… p50`, `….p99`). */
export function isMilliseconds(metric: string): boolean {
  return /(Ms|_ms|[ ._]p\d{2})$/.test(metric);
}

/**
 * Whether more is better: a metric named `…PerSecond` is a throughput (a regression is less than half its
 * baseline); every other metric is a cost, a time or a size (a regression is more than twice its baseline).
 */
export function higherIsBetter(metric: string): boolean {
  return metric.endsWith('PerSecond');
}

/** One metric against its baseline. */
export interface MetricCheck {
  readonly metric: string;
  readonly baseline?: number;
  readonly measured?: number;
  /**
   * `ok` within the factor; `regressed` beyond it; `missing` in the baseline but not measured; `new` measured but
   * not in the baseline; `unscaled` a baseline of 0 or less, which no factor applies to.
   */
  readonly status: 'ok' | 'regressed' | 'missing' | 'new' | 'unscaled';
}

const noiseFloorMs = (metric: string): number => (isTail(metric) ? TAIL_NOISE_FLOOR_MS : NOISE_FLOOR_MS);

/** Checks every metric of the baseline and of the measurement, in name order. */
export function compareMetrics(
  baseline: BenchMetrics,
  measured: BenchMetrics,
  factor = REGRESSION_FACTOR,
): MetricCheck[] {
  const names = [...new Set([...Object.keys(baseline), ...Object.keys(measured)])].sort();
  return names.map((metric): MetricCheck => {
    const base = baseline[metric];
    const value = measured[metric];
    if (base === undefined) return { metric, measured: value as number, status: 'new' };
    if (value === undefined) return { metric, baseline: base, status: 'missing' };
    if (!(base > 0)) return { metric, baseline: base, measured: value, status: 'unscaled' };
    const regressed = higherIsBetter(metric)
      ? value < base / factor
      : value > base * factor && !(isMilliseconds(metric) && value - base <= noiseFloorMs(metric));
    return { metric, baseline: base, measured: value, status: regressed ? 'regressed' : 'ok' };
  });
}

/** The checks that fail the build: a regression, or a metric the benchmark no longer reports. */
export function failedChecks(checks: readonly MetricCheck[]): MetricCheck[] {
  return checks.filter((check) => check.status === 'regressed' || check.status === 'missing');
}

/** The better figure of two runs for each metric (for a rerun after a regression: noise is not reproduced). */
export function bestOf(first: BenchMetrics, second: BenchMetrics): BenchMetrics {
  const best: Record<string, number> = { ...first };
  for (const [metric, value] of Object.entries(second)) {
    const before = best[metric];
    if (before === undefined) best[metric] = value;
    else best[metric] = higherIsBetter(metric) ? Math.max(before, value) : Math.min(before, value);
  }
  return best;
}

const figure = (value: number | undefined): string =>
  value === undefined ? '—' : Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);

/** A table of the checks: metric, baseline, measured, × baseline, status. */
export function formatChecks(checks: readonly MetricCheck[], factor = REGRESSION_FACTOR): string {
  const rows = checks.map((check) => [
    check.metric,
    figure(check.baseline),
    figure(check.measured),
    check.baseline !== undefined && check.measured !== undefined && check.baseline > 0
      ? `${(check.measured / check.baseline).toFixed(2)}×`
      : '',
    check.status === 'regressed'
      ? `REGRESSED (${higherIsBetter(check.metric) ? `< 1/${factor}` : `> ${factor}`}× baseline)`
      : check.status,
  ]);
  const header = ['metric', 'baseline', 'measured', 'ratio', 'status'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
