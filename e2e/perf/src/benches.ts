/** One benchmark of the regression check: its key in baseline.json and its entry file. */
export interface BenchSpec {
  /** The key of its figures in baseline.json (`core`, `gpu-allocate`). */
  readonly id: string;
  /** Its entry file from the workspace root, `packages/<p>/bench/<name>.ts`, as its `nx run <p>:bench…` bundles it. */
  readonly entry: string;
  /** Packages left out of its bundle besides esbuild (native addons it loads itself). */
  readonly external?: readonly string[];
  /** Only the metrics whose names match are checked (and kept in the baseline); default all. */
  readonly metrics?: RegExp;
}

/**
 * Every benchmark the regression check runs in short mode (`KDP_BENCH_SHORT=1`), each writing its figures to
 * `KDP_BENCH_JSON`. Adding one is one line here, then `npx nx run e2e-perf:update-baseline -- <id>`.
 */
export const BENCHES: readonly BenchSpec[] = [
  { id: 'core', entry: 'packages/core/bench/bench.ts' },
  { id: 'dra', entry: 'packages/dra/bench/bench.ts' },
  { id: 'topology', entry: 'packages/topology/bench/topology-bench.ts' },
  // Short mode times 24 calls per case: their p99 is one preemption by another process, so only medians count.
  { id: 'sriov', entry: 'packages/plugin-sriov/bench/bench.ts', metrics: /p50$/ },
  { id: 'gpu-allocate', entry: 'packages/plugin-gpu/bench/allocate-bench.ts' },
  { id: 'device-plugins', entry: 'packages/device-plugins/bench/memory-bench.ts' },
];
