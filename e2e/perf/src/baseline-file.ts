import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBenchMetrics, type Baseline } from './bench-metrics';

/** e2e/perf/baseline.json: each benchmark's short-mode figures on the reference machine. */
export const BASELINE_FILE = join(__dirname, '..', 'baseline.json');

/** Reads the baseline; every entry must be an object of finite numbers. */
export function readBaseline(file = BASELINE_FILE): Baseline {
  const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(value).map(([id, metrics]) => [id, parseBenchMetrics(JSON.stringify(metrics))]),
  );
}

/** Writes the baseline, benchmarks and metrics in name order (stable diffs). */
export function writeBaseline(baseline: Baseline, file = BASELINE_FILE): void {
  const sorted = Object.fromEntries(
    Object.keys(baseline)
      .sort()
      .map((id) => {
        const metrics = baseline[id] ?? {};
        return [
          id,
          Object.fromEntries(
            Object.keys(metrics)
              .sort()
              .map((m) => [m, metrics[m]]),
          ),
        ];
      }),
  );
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}
