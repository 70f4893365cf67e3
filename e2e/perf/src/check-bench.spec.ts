import type { BenchMetrics } from './bench-metrics';
import type { BenchSpec } from './benches';
import { checkBench } from './check-bench';
import type { BenchRun } from './run-bench';

const bench: BenchSpec = { id: 'demo', entry: 'packages/demo/bench/bench.ts' };
const runsOf = (...results: Array<BenchMetrics | string>) => {
  const calls: number[] = [];
  const run = async (): Promise<BenchRun> => {
    calls.push(calls.length);
    const next = results[calls.length - 1];
    return typeof next === 'string'
      ? { problem: next, output: 'bench output', seconds: 1 }
      : { metrics: next as BenchMetrics, output: '', seconds: 1 };
  };
  return { calls, run };
};

describe('checkBench', () => {
  it('runs once when every figure is within bounds', async () => {
    const { calls, run } = runsOf({ p50Ms: 1.5 });
    const result = await checkBench(bench, { p50Ms: 1 }, run);
    expect(calls).toHaveLength(1);
    expect(result.failures).toEqual([]);
    expect(result.report).toContain('demo (packages/demo/bench/bench.ts, one run');
  });

  it('runs again after a regression and passes when a later run is within bounds', async () => {
    const { calls, run } = runsOf({ p50Ms: 3, p99Ms: 2 }, { p50Ms: 1.2, p99Ms: 9 });
    const result = await checkBench(bench, { p50Ms: 1, p99Ms: 2 }, run);
    expect(calls).toHaveLength(2);
    expect(result.failures).toEqual([]);
    expect(result.report).toContain('best of 2 runs');
  });

  it('fails a regression every run shows, after three runs', async () => {
    const { calls, run } = runsOf({ p50Ms: 3 }, { p50Ms: 2.5 }, { p50Ms: 2.8 }, { p50Ms: 1 });
    const result = await checkBench(bench, { p50Ms: 1 }, run);
    expect(calls).toHaveLength(3);
    expect(result.failures).toEqual([{ metric: 'p50Ms', baseline: 1, measured: 2.5, status: 'regressed' }]);
    expect(result.report).toContain('best of 3 runs');
  });

  it('says why a benchmark could not be checked, with its output', async () => {
    const { run } = runsOf('wrote no figures to $KDP_BENCH_JSON');
    const result = await checkBench(bench, { p50Ms: 1 }, run);
    expect(result.problem).toBe('demo (packages/demo/bench/bench.ts): wrote no figures to $KDP_BENCH_JSON');
    expect(result.report).toContain('bench output');
  });
});
