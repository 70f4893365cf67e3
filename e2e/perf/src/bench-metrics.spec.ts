import { parseBenchMetrics, selectMetrics } from './bench-metrics';
import { bundlePathOf } from './run-bench';
import { medianMetrics } from './update-baseline';

describe('parseBenchMetrics', () => {
  it('reads an object of finite numbers', () => {
    expect(parseBenchMetrics('{"p50Ms": 0.5, "rssMiB": 51}')).toEqual({ p50Ms: 0.5, rssMiB: 51 });
  });

  it('refuses anything else, naming the bad metrics', () => {
    expect(() => parseBenchMetrics('[1]')).toThrow('not an object of metrics');
    expect(() => parseBenchMetrics('{}')).toThrow('no metric');
    expect(() => parseBenchMetrics('{"a": "1", "b": null, "c": 2}')).toThrow(
      'not a finite number: a="1", b=null',
    );
  });
});

describe('bundlePathOf', () => {
  it("is where the benchmark's nx target writes its bundle", () => {
    expect(bundlePathOf('packages/dra/bench/prepare-bench.ts')).toBe(
      'packages/dra/dist/bench/prepare-bench.js',
    );
    expect(() => bundlePathOf('e2e/perf/src/x.ts')).toThrow('packages/<package>/bench/<name>.ts');
  });
});

describe('medianMetrics', () => {
  it("takes each metric's median over the runs that all reported it", () => {
    expect(medianMetrics([{ a: 3, b: 1 }, { a: 1 }, { a: 2, b: 5 }])).toEqual({ a: 2 });
    expect(medianMetrics([{ a: 1 }, { a: 4 }])).toEqual({ a: 2.5 });
  });
});

describe('selectMetrics', () => {
  it('keeps the metrics whose names match, or all', () => {
    const metrics = { 'a p50': 1, 'a p99': 9 };
    expect(selectMetrics(metrics, /p50$/)).toEqual({ 'a p50': 1 });
    expect(selectMetrics(metrics, undefined)).toBe(metrics);
  });
});
