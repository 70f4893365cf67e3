// `npx nx run e2e-perf:update-baseline [-- ID… --runs N]`: runs the benchmarks in short mode N times (default 3)
// and writes each one's median figures to e2e/perf/baseline.json (only the IDs given, default all), with the
// median of the machine's reference time measured before each run (`machine-speed.ts`). A benchmark that fails or
// writes no figures keeps its old entry (or stays without one) and makes the exit code 1.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Baseline, BenchMetrics } from './bench-metrics';
import { BASELINE_FILE, readBaseline, writeBaseline } from './baseline-file';
import { BENCHES } from './benches';
import { measureReference, REFERENCE_METRIC } from './machine-speed';
import { runBench } from './run-bench';

const RUN_TIMEOUT_MS = 10 * 60_000;

/** Each metric's median over runs (metrics every run reported). */
export function medianMetrics(runs: readonly BenchMetrics[]): BenchMetrics {
  const first = runs[0] ?? {};
  const names = Object.keys(first).filter((name) => runs.every((run) => run[name] !== undefined));
  return Object.fromEntries(
    names.map((name) => {
      const sorted = runs.map((run) => run[name] as number).sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      const median =
        sorted.length % 2 === 1
          ? (sorted[mid] as number)
          : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
      return [name, median];
    }),
  );
}

function parseArgs(args: readonly string[]): { ids: string[]; runs: number } {
  const ids: string[] = [];
  let runs = 3;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--runs') runs = Number(args[++i]);
    else if (arg.startsWith('--runs=')) runs = Number(arg.slice('--runs='.length));
    else ids.push(arg);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number from 1');
  const unknown = ids.filter((id) => !BENCHES.some((bench) => bench.id === id));
  if (unknown.length > 0)
    throw new Error(
      `unknown benchmark ${unknown.join(', ')}; listed: ${BENCHES.map((b) => b.id).join(', ')}`,
    );
  return { ids, runs };
}

async function main(): Promise<number> {
  const { ids, runs } = parseArgs(process.argv.slice(2));
  const chosen = ids.length > 0 ? BENCHES.filter((bench) => ids.includes(bench.id)) : BENCHES;
  const listed = new Set(BENCHES.map((bench) => bench.id));
  const old: Baseline = existsSync(BASELINE_FILE) ? readBaseline() : {};
  const baseline: Record<string, BenchMetrics> = Object.fromEntries(
    Object.entries(old).filter(([id]) => listed.has(id)),
  );
  const failed: string[] = [];
  process.stdout.write(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  for (const bench of chosen) {
    const figures: BenchMetrics[] = [];
    for (let i = 0; i < runs; i++) {
      process.stdout.write(`${bench.id}: run ${i + 1} of ${runs} …\n`);
      const referenceMs = await measureReference();
      const run = await runBench(bench, RUN_TIMEOUT_MS);
      if (run.metrics === undefined) {
        process.stdout.write(
          `${bench.id}: ${run.problem ?? 'no figures'}; its entry is left as it was\n${run.output}\n`,
        );
        failed.push(bench.id);
        break;
      }
      figures.push({ ...run.metrics, [REFERENCE_METRIC]: referenceMs });
      process.stdout.write(
        `${bench.id}: ${run.seconds.toFixed(1)} s (the machine's reference: ${referenceMs.toFixed(0)} ms)\n`,
      );
    }
    if (figures.length === runs) baseline[bench.id] = medianMetrics(figures);
  }
  writeBaseline(baseline);
  process.stdout.write(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  process.stdout.write(`wrote ${BASELINE_FILE}\n`);
  if (failed.length > 0) process.stdout.write(`no figures from: ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

if (require.main === module)
  main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`update-baseline: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    },
  );
