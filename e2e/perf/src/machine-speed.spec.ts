import type { BenchMetrics } from './bench-metrics';
import type { BenchSpec } from './benches';
import { checkBench } from './check-bench';
import {
  measureReference,
  normalizedRun,
  normalizeMetrics,
  REFERENCE_METRIC,
  slowdownOf,
  splitReference,
} from './machine-speed';
import { runReferenceWorkload } from './reference-workload';

const bench: BenchSpec = { id: 'demo', entry: 'packages/demo/bench/bench.ts' };
const reporting = (metrics: BenchMetrics) => async () => ({ metrics, output: '', seconds: 1 });

describe('slowdownOf', () => {
  it('is the ratio of the reference times, never below 1, and 1 without a reference', () => {
    expect(slowdownOf(900, 300)).toBe(3);
    expect(slowdownOf(150, 300)).toBe(1);
    expect(slowdownOf(900, undefined)).toBe(1);
    expect(slowdownOf(900, 0)).toBe(1);
    expect(slowdownOf(Number.NaN, 300)).toBe(1);
  });
});

describe('normalizeMetrics', () => {
  it('divides times, multiplies throughputs and leaves sizes and ratios as they are', () => {
    expect(
      normalizeMetrics(
        {
          p50Ms: 3,
          'gpu.start_to_ready_ms': 900,
          'publish p99': 30,
          callsPerSecond: 100,
          rssMiB: 40,
          p50Ratio: 1.1,
        },
        3,
      ),
    ).toEqual({
      p50Ms: 1,
      'gpu.start_to_ready_ms': 300,
      'publish p99': 10,
      callsPerSecond: 300,
      rssMiB: 40,
      p50Ratio: 1.1,
    });
  });
});

describe('splitReference', () => {
  it('takes the machine reference out of a baseline entry', () => {
    expect(splitReference({ p50Ms: 1, [REFERENCE_METRIC]: 400 })).toEqual({
      metrics: { p50Ms: 1 },
      referenceMs: 400,
    });
    expect(splitReference({ p50Ms: 1 })).toEqual({ metrics: { p50Ms: 1 } });
  });
});

describe('normalizedRun', () => {
  it('passes on a machine three times slower what fails unnormalized, and still fails a regression beyond it', async () => {
    const baseline = { p50Ms: 10, rssMiB: 40 };
    const slowMachine = async () => 1200;
    const slower = await checkBench(
      bench,
      baseline,
      normalizedRun(reporting({ p50Ms: 28, rssMiB: 41 }), 400, slowMachine),
    );
    expect(slower.failures).toEqual([]);
    expect(slower.report).toContain('3.00×');
    const unnormalized = await checkBench(bench, baseline, reporting({ p50Ms: 28, rssMiB: 41 }));
    expect(unnormalized.failures.map((f) => f.metric)).toEqual(['p50Ms']);
    const regressed = await checkBench(
      bench,
      baseline,
      normalizedRun(reporting({ p50Ms: 70, rssMiB: 90 }), 400, slowMachine),
    );
    expect(regressed.failures.map((f) => [f.metric, f.measured])).toEqual([
      ['p50Ms', 70 / 3],
      ['rssMiB', 90],
    ]);
  });

  it('holds a faster machine to the baseline as taken', async () => {
    const result = await checkBench(
      bench,
      { p50Ms: 10 },
      normalizedRun(reporting({ p50Ms: 25 }), 400, async () => 100),
    );
    expect(result.failures.map((f) => [f.metric, f.measured])).toEqual([['p50Ms', 25]]);
    expect(result.report).toContain('1.00×');
  });
});

describe('the reference workload', () => {
  it('times its three parts', () => {
    const times = runReferenceWorkload();
    expect(Object.keys(times)).toEqual(['compileMs', 'objectsMs', 'filesMs']);
    for (const ms of Object.values(times)) expect(ms).toBeGreaterThan(0);
  });

  it('is measured as a process of its own, the fastest of the rounds', async () => {
    const ms = await measureReference(2);
    expect(Number.isFinite(ms)).toBe(true);
    // A process that starts Node, compiles and runs code and writes files takes more than a few milliseconds.
    expect(ms).toBeGreaterThan(20);
  }, 120_000);
});
