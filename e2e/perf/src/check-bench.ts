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
  /** The failing checks: regressions beyond the factor in both runs, and metrics no longer reported. */
  readonly failures: readonly MetricCheck[];
  /** What to print: the checks, or the problem and the benchmark's output. */
  readonly report: string;
}

/**
 * Runs a benchmark and compares its figures with its baseline. When a figure is out of bounds it runs once more
 * and takes each metric's better figure of the two, so a regression must show in both runs (a noisy neighbour
 * rarely slows the same figure twice; a real regression does).
 */
export async function checkBench(
  bench: BenchSpec,
  baseline: BenchMetrics,
  run: (bench: BenchSpec) => Promise<BenchRun>,
): Promise<BenchCheck> {
  const first = await run(bench);
  if (first.metrics === undefined) return unchecked(bench, [first]);
  let checks = compareMetrics(baseline, first.metrics);
  const runs = [first];
  if (checks.some((check) => check.status === 'regressed')) {
    const second = await run(bench);
    runs.push(second);
    if (second.metrics === undefined) return unchecked(bench, runs);
    checks = compareMetrics(baseline, bestOf(first.metrics, second.metrics));
  }
  const seconds = runs.map((r) => `${r.seconds.toFixed(1)} s`).join(' + ');
  return {
    runs,
    checks,
    failures: failedChecks(checks),
    report: `${bench.id} (${bench.entry}, ${runs.length === 1 ? 'one run' : 'best of two runs'}, ${seconds}):\n${formatChecks(checks)}`,
  };
}

function unchecked(bench: BenchSpec, runs: readonly BenchRun[]): BenchCheck {
  const last = runs[runs.length - 1] as BenchRun;
  const problem = `${bench.id} (${bench.entry}): ${last.problem ?? 'no figures'}`;
  return { runs, problem, checks: [], failures: [], report: `${problem}\n${last.output}` };
}
