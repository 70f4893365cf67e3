import { execFileSync } from 'node:child_process';

/** The Node binary a bench starts plugins with, and its version. */
export interface BenchNode {
  /** Its path. */
  readonly path: string;
  /** What `node --version` prints, e.g. `v24.21.0`. */
  readonly version: string;
}

/**
 * The Node a bench starts plugins with: `KDP_BENCH_NODE` (the nx bench targets set it to the images' Node,
 * `tools/image/runtime-node.mjs`), else the Node running the bench.
 */
export function benchNode(env: NodeJS.ProcessEnv = process.env): BenchNode {
  const path = env['KDP_BENCH_NODE'] || process.execPath;
  return { path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() };
}
