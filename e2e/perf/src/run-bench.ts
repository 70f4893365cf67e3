import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { parseBenchMetrics, selectMetrics, type BenchMetrics } from './bench-metrics';
import type { BenchSpec } from './benches';

/** The workspace root. */
export const WORKSPACE = join(__dirname, '..', '..', '..');

/** What one short run of a benchmark gave. */
export interface BenchRun {
  /** Its figures; absent when it failed or wrote none (then `problem` says which). */
  readonly metrics?: BenchMetrics;
  readonly problem?: string;
  /** Its stdout and stderr, for the report. */
  readonly output: string;
  readonly seconds: number;
  /** How many times slower the machine was than the baseline's, its figures divided by it (`machine-speed.ts`). */
  readonly slowdown?: number;
}

/**
 * Where a benchmark's `nx run` target writes its bundle (`packages/<p>/bench/<name>.ts` →
 * `packages/<p>/dist/bench/<name>.js`): benchmarks find the plugin bundle they start beside it.
 */
export function bundlePathOf(entry: string): string {
  const match = /^(packages\/[^/]+)\/bench\/(.+)\.ts$/.exec(entry);
  if (match === null) throw new Error(`${entry}: a benchmark's entry is packages/<package>/bench/<name>.ts`);
  return `${match[1]}/dist/bench/${match[2]}.js`;
}

/**
 * Bundles a benchmark as its target does and runs it in short mode (`KDP_BENCH_SHORT=1`) from the workspace
 * root, its figures written to a private `KDP_BENCH_JSON` file; killed after `timeoutMs`.
 */
export async function runBench(bench: BenchSpec, timeoutMs: number): Promise<BenchRun> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'kdp-perf-'));
  const json = join(dir, `${bench.id}.json`);
  const seconds = (): number => (performance.now() - started) / 1000;
  try {
    const bundle = bundleEntry(join(WORKSPACE, bench.entry), {
      outfile: join(WORKSPACE, bundlePathOf(bench.entry)),
      external: ['esbuild', ...(bench.external ?? [])],
    });
    const child = spawn(process.execPath, [bundle.path], {
      cwd: WORKSPACE,
      env: { ...process.env, KDP_BENCH_SHORT: '1', KDP_BENCH_JSON: json },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(timer);
    if (signal === 'SIGKILL')
      return { problem: `still running after ${timeoutMs / 1000} s; killed`, output, seconds: seconds() };
    if (code !== 0) return { problem: `exited with ${code ?? signal}`, output, seconds: seconds() };
    let text: string;
    try {
      text = readFileSync(json, 'utf8');
    } catch {
      return {
        problem: 'wrote no figures to $KDP_BENCH_JSON (it needs KDP_BENCH_SHORT/KDP_BENCH_JSON support)',
        output,
        seconds: seconds(),
      };
    }
    try {
      return { metrics: selectMetrics(parseBenchMetrics(text), bench.metrics), output, seconds: seconds() };
    } catch (error) {
      return { problem: `bad $KDP_BENCH_JSON: ${(error as Error).message}`, output, seconds: seconds() };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
