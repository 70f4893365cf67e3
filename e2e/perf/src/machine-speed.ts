import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import type { BenchMetrics } from './bench-metrics';
import { higherIsBetter, isMilliseconds } from './compare-metrics';
import { WORKSPACE, type BenchRun } from './run-bench';
import type { BenchSpec } from './benches';

/** The figure a baseline keeps besides the benchmark's own: the reference workload's time on its machine. */
export const REFERENCE_METRIC = 'machine.referenceWorkloadMs';

/** How many times the reference workload runs for one measure; the fastest counts. */
export const REFERENCE_ROUNDS = 5;

const WORKLOAD = join(WORKSPACE, 'e2e', 'perf', 'src', 'reference-workload.ts');

/** Runs a file with `node` once and resolves with spawn → exit in milliseconds; rejects when it fails. */
function timeProcess(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`reference workload exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * The reference workload's time on this machine now (`reference-workload.ts`, in a process of its own: spawn →
 * exit, Node's start included), the fastest of `rounds`: what the machine does at its best, as a benchmark's
 * best run is.
 */
export async function measureReference(rounds = REFERENCE_ROUNDS): Promise<number> {
  const bundle = bundleEntry(WORKLOAD);
  try {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < rounds; i++) best = Math.min(best, await timeProcess(bundle.path));
    return best;
  } finally {
    bundle.remove();
  }
}

/**
 * How many times slower this machine is than the baseline's: the ratio of their reference times, never below 1.
 * A faster machine is held to the baseline's figures as they are: a time that does not shrink with the processor
 * (a disk's fsync, a timer) must not fail there. Without a reference in the baseline, 1.
 */
export function slowdownOf(referenceMs: number, baselineReferenceMs: number | undefined): number {
  if (baselineReferenceMs === undefined || !(baselineReferenceMs > 0) || !(referenceMs > 0)) return 1;
  return Math.max(1, referenceMs / baselineReferenceMs);
}

/**
 * A benchmark's figures as the baseline's machine would have shown them: times divided by the slowdown,
 * throughputs multiplied by it; sizes, counts and ratios as they are.
 */
export function normalizeMetrics(metrics: BenchMetrics, slowdown: number): BenchMetrics {
  return Object.fromEntries(
    Object.entries(metrics).map(([metric, value]) => [
      metric,
      isMilliseconds(metric) ? value / slowdown : higherIsBetter(metric) ? value * slowdown : value,
    ]),
  );
}

/** A baseline entry split into the benchmark's figures and the reference time of the machine they were taken on. */
export function splitReference(entry: BenchMetrics): { metrics: BenchMetrics; referenceMs?: number } {
  const { [REFERENCE_METRIC]: referenceMs, ...metrics } = entry;
  return referenceMs === undefined ? { metrics } : { metrics, referenceMs };
}

/**
 * Wraps a benchmark run so that each run measures the machine first and reports its figures normalized to the
 * baseline's machine (`slowdown` says by how much).
 */
export function normalizedRun(
  run: (bench: BenchSpec) => Promise<BenchRun>,
  baselineReferenceMs: number | undefined,
  measure: () => Promise<number> = measureReference,
): (bench: BenchSpec) => Promise<BenchRun> {
  return async (bench) => {
    const slowdown = slowdownOf(await measure(), baselineReferenceMs);
    const result = await run(bench);
    return result.metrics === undefined
      ? { ...result, slowdown }
      : { ...result, metrics: normalizeMetrics(result.metrics, slowdown), slowdown };
  };
}
