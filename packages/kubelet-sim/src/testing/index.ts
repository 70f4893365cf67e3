/**
 * Helpers for tests that run plugins as processes. A separate entry point, so the simulator and its CLI never
 * load esbuild.
 *
 * @packageDocumentation
 * @module @kdp/kubelet-sim/testing
 */

export { bundleEntry } from './bundle-entry';
export type { BundleEntryOptions, EntryBundle } from './bundle-entry';
export { spawnPlugin } from './spawn-plugin';
export type { PluginProcess } from './spawn-plugin';
export { percentile } from './bench/run-plugin-bench';
export type {
  BenchStep,
  PluginBenchResult,
  PluginBenchScenario,
  StepLatencies,
} from './bench/run-plugin-bench';
export { parseBenchDuration } from './bench/parse-plugin-bench-args';
export type { PluginBenchArgs } from './bench/parse-plugin-bench-args';
export { runPluginBenchCli } from './bench/run-plugin-bench-cli';
export type { PluginBenchCliOptions } from './bench/run-plugin-bench-cli';
export { clockTicks, cpuTicks, rssMiB } from './bench/process-usage';
export { stopProcess } from './bench/stop-process';
export { metricsUrlOf, scanCounts } from './bench/scan-counts';
export { imageProcessEnv, plainProcessEnv } from './bench/read-image-env';
export { imageApp } from './bench/image-app';
export { benchNode } from './bench/bench-node';
export type { BenchNode } from './bench/bench-node';
