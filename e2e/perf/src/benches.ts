/** One benchmark of the regression check: its key in baseline.json and its entry file. */
export interface BenchSpec {
  /** The key of its figures in baseline.json (`core`, `gpu-allocate`). */
  readonly id: string;
  /** Its entry file from the workspace root, `packages/<p>/bench/<name>.ts`, as its `nx run <p>:bench…` bundles it. */
  readonly entry: string;
  /** Packages left out of its bundle besides esbuild (native addons it loads itself). */
  readonly external?: readonly string[];
}

/**
 * Every benchmark the regression check runs in short mode (`KDP_BENCH_SHORT=1`), each writing its figures to
 * `KDP_BENCH_JSON`. Adding one is one line here, then `npx nx run e2e-perf:update-baseline -- <id>`.
 */
export const BENCHES: readonly BenchSpec[] = [
  { id: 'core', entry: 'packages/core/bench/bench.ts' },
  { id: 'dra-publish', entry: 'packages/dra/bench/publish-bench.ts' },
  { id: 'dra-prepare', entry: 'packages/dra/bench/prepare-bench.ts' },
  { id: 'topology', entry: 'packages/topology/bench/topology-bench.ts' },
  { id: 'sriov', entry: 'packages/plugin-sriov/bench/bench.ts' },
  { id: 'gpu-allocate', entry: 'packages/plugin-gpu/bench/allocate-bench.ts' },
];
