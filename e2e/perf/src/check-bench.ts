import type { BenchMetrics } from './bench-metrics';
import type { BenchSpec } from './benches';
import { bestOf, compareMetrics, failedChecks, formatChecks, type MetricCheck } from './compare-metrics';
import type { BenchRun } from './run-bench';

/** A benchmark checked against its baseline. */
export interface BenchCheck {
  readonly runs: readonly BenchRun[];
  /** Why it could not be checked (it failed, or wrote no figures); absent when it was. */
  readonly problem?: string;
  readonly checks: readonly MetricCheck[];
  /** The failing checks: regressions beyond the factor in every run, and metrics no longer reported. */
  readonly failures: readonly MetricCheck[];
  /** What to print: the checks, or the problem and the benchmark's output. */
  readonly report: string;
}

/** How many runs a benchmark gets at most: more only while a figure is out of bounds. */
export const MAX_RUNS = 3;

/**
 * Runs a benchmark and compares its figures with its baseline. While a figure is out of bounds it runs again, up
 * to {@link MAX_RUNS} runs, and each metric's best figure so far counts, so a regression must show in every run (a
 * noisy neighbour rarely slows the same figure three times over; a real regression does).
 */
export async function checkBench(
  bench: BenchSpec,
  baseline: BenchMetrics,
  run: (bench: BenchSpec) => Promise<BenchRun>,
): Promise<BenchCheck> {
  const runs: BenchRun[] = [];
  let best: BenchMetrics | undefined;
  let checks: MetricCheck[] = [];
  do {
    const next = await run(bench);
    runs.push(next);
    if (next.metrics === undefined) return unchecked(bench, runs);
    best = best === undefined ? next.metrics : bestOf(best, next.metrics);
    checks = compareMetrics(baseline, best);
  } while (runs.length < MAX_RUNS && checks.some((check) => check.status === 'regressed'));
  const seconds = runs.map((r) => `${r.seconds.toFixed(1)} s`).join(' + ');
  const how = runs.length === 1 ? 'one run' : `best of ${runs.length} runs`;
  const slowdowns = runs.flatMap((r) => (r.slowdown === undefined ? [] : [`${r.slowdown.toFixed(2)}×`]));
  const machine =
    slowdowns.length === 0
      ? ''
      : `; times ÷ this machine's slowdown against the baseline's: ${slowdowns.join(', ')}`;
  return {
    runs,
    checks,
    failures: failedChecks(checks),
    report: `${bench.id} (${bench.entry}, ${how}, ${seconds}${machine}):\n${formatChecks(checks)}`,
  };
}

function unchecked(bench: BenchSpec, runs: readonly BenchRun[]): BenchCheck {
  const last = runs[runs.length - 1] as BenchRun;
  const problem = `${bench.id} (${bench.entry}): ${last.problem ?? 'no figures'}`;
  return { runs, problem, checks: [], failures: [], report: `${problem}\n${last.output}` };
}
