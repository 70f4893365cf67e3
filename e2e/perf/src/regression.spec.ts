import { readBaseline } from './baseline-file';
import { BENCHES } from './benches';
import { checkBench, MAX_RUNS } from './check-bench';
import { normalizedRun, REFERENCE_METRIC, REFERENCE_ROUNDS, splitReference } from './machine-speed';
import { runBench } from './run-bench';

// The CI regression check: every benchmark in short mode against its figures in baseline.json; a metric fails
// only beyond 2× its baseline (half, for a `…PerSecond` throughput), and only when every one of up to three runs
// shows it. Before each run the machine is measured (`machine-speed.ts`): on one slower than the baseline's, times
// are divided by how much slower it is.
// A listed benchmark without a baseline yet is a `todo` in jest's summary, never a silent pass.

const RUN_TIMEOUT_MS = 180_000;
const baseline = readBaseline();

describe('benchmarks in short mode against e2e/perf/baseline.json', () => {
  it('has a baseline only for listed benchmarks', () => {
    const listed = new Set(BENCHES.map((bench) => bench.id));
    expect(Object.keys(baseline).filter((id) => !listed.has(id))).toEqual([]);
  });

  it('has the reference time of the machine each baseline was taken on', () => {
    const without = Object.entries(baseline).filter(([, entry]) => !(Number(entry[REFERENCE_METRIC]) > 0));
    expect(without.map(([id]) => id)).toEqual([]);
  });

  for (const bench of BENCHES) {
    const entry = baseline[bench.id];
    if (entry === undefined) {
      it.todo(`${bench.id}: no baseline yet; npx nx run e2e-perf:update-baseline -- ${bench.id}`);
      continue;
    }
    it(
      `${bench.id} stays within 2× of its baseline`,
      async () => {
        const { metrics, referenceMs } = splitReference(entry);
        const run = normalizedRun((b) => runBench(b, RUN_TIMEOUT_MS), referenceMs);
        const result = await checkBench(bench, metrics, run);
        process.stdout.write(`\n${result.report}\n`);
        expect(result.problem).toBeUndefined();
        expect(result.failures).toEqual([]);
      },
      MAX_RUNS * (RUN_TIMEOUT_MS + REFERENCE_ROUNDS * 10_000) + 30_000,
    );
  }
});
