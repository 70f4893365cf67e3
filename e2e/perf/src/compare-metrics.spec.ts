import {
  bestOf,
  compareMetrics,
  failedChecks,
  formatChecks,
  higherIsBetter,
  isMilliseconds,
  isTail,
} from './compare-metrics';

describe('compareMetrics', () => {
  it('fails a cost only beyond twice its baseline, a throughput only below half', () => {
    const checks = compareMetrics(
      { p50Ms: 1, p99Ms: 4, rssMiB: 50, callsPerSecond: 1000 },
      { p50Ms: 2, p99Ms: 9.1, rssMiB: 20, callsPerSecond: 499 },
    );
    expect(checks.map((c) => [c.metric, c.status])).toEqual([
      ['callsPerSecond', 'regressed'],
      ['p50Ms', 'ok'],
      ['p99Ms', 'regressed'],
      ['rssMiB', 'ok'],
    ]);
    expect(higherIsBetter('callsPerSecond')).toBe(true);
    expect(higherIsBetter('allocateP50Ratio')).toBe(false);
  });

  it('needs a time to grow by more than 1 ms (a tail by more than 5 ms) as well as beyond twice its baseline', () => {
    const checks = compareMetrics(
      {
        'tiny p50': 0.01,
        'dra.prepare.p50': 0.4,
        fastMs: 0.5,
        start_ms: 3,
        countMiB: 0.2,
        'a p99': 0.33,
        'b p99': 2,
        slowMaxMs: 4,
      },
      {
        'tiny p50': 0.9,
        'dra.prepare.p50': 1.5,
        fastMs: 1.4,
        start_ms: 6.5,
        countMiB: 0.9,
        'a p99': 1.52,
        'b p99': 7.5,
        slowMaxMs: 8.9,
      },
    );
    expect(checks.map((c) => [c.metric, c.status])).toEqual([
      ['a p99', 'ok'],
      ['b p99', 'regressed'],
      ['countMiB', 'regressed'],
      ['dra.prepare.p50', 'regressed'],
      ['fastMs', 'ok'],
      ['slowMaxMs', 'ok'],
      ['start_ms', 'regressed'],
      ['tiny p50', 'ok'],
    ]);
    expect(['a p50', 'a.p99', 'aMs', 'a_ms', 'aMiB', 'aRatio'].map(isMilliseconds)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(
      ['a p99', 'a.p95', 'kdpAllocateP99Ms', 'x.start_to_ready_max_ms', 'a p50', 'allocateP99Ratio'].map(
        isTail,
      ),
    ).toEqual([true, true, true, true, false, false]);
  });

  it('fails a metric the benchmark stopped reporting; reports new metrics and zero baselines without failing', () => {
    const checks = compareMetrics({ goneMs: 1, errors: 0 }, { errors: 3, addedMs: 5 });
    expect(checks).toEqual([
      { metric: 'addedMs', measured: 5, status: 'new' },
      { metric: 'errors', baseline: 0, measured: 3, status: 'unscaled' },
      { metric: 'goneMs', baseline: 1, status: 'missing' },
    ]);
    expect(failedChecks(checks).map((c) => c.metric)).toEqual(['goneMs']);
  });

  it('takes the better figure of two runs per metric', () => {
    expect(bestOf({ aMs: 3, bPerSecond: 10, only: 1 }, { aMs: 2, bPerSecond: 5, later: 4 })).toEqual({
      aMs: 2,
      bPerSecond: 10,
      only: 1,
      later: 4,
    });
  });

  it('prints each metric with its ratio and says what a regression means', () => {
    const table = formatChecks(
      compareMetrics({ p99Ms: 2, okPerSecond: 100 }, { p99Ms: 7.5, okPerSecond: 120 }),
    );
    expect(table.split('\n')).toEqual([
      'metric       baseline  measured  ratio  status',
      'okPerSecond  100       120       1.20×  ok',
      'p99Ms        2.00      7.50      3.75×  REGRESSED (> 2× baseline)',
    ]);
  });
});
