/** A benchmark's figures as it writes them to `KDP_BENCH_JSON`: metric name → number. */
export type BenchMetrics = Readonly<Record<string, number>>;

/** Every benchmark's figures by benchmark ID, as in baseline.json. */
export type Baseline = Readonly<Record<string, BenchMetrics>>;

/** Reads a benchmark's JSON: an object of finite numbers; throws saying what is wrong. */
export function parseBenchMetrics(text: string): BenchMetrics {
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('the JSON is not an object of metrics');
  const bad = Object.entries(value).filter(
    ([, figure]) => typeof figure !== 'number' || !Number.isFinite(figure),
  );
  if (bad.length > 0)
    throw new Error(
      `not a finite number: ${bad.map(([name, figure]) => `${name}=${JSON.stringify(figure)}`).join(', ')}`,
    );
  if (Object.keys(value).length === 0) throw new Error('the JSON holds no metric');
  return value as BenchMetrics;
}

/** The metrics whose names match `only` (all without it). */
export function selectMetrics(metrics: BenchMetrics, only: RegExp | undefined): BenchMetrics {
  if (only === undefined) return metrics;
  return Object.fromEntries(Object.entries(metrics).filter(([name]) => only.test(name)));
}
