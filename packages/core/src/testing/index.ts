/**
 * Test helpers for plugins built on the runtime: run a definition in-process with its output captured and its
 * signals under the test's control.
 *
 * @packageDocumentation
 * @module @kdp/core/testing
 */

export { runPluginCommand, startPluginRun } from './start-plugin-run';
export type { PluginRun, StartPluginRunOptions } from './start-plugin-run';
export { resolveCdiDevices } from './resolve-cdi-devices';
export type { ResolvedCdiDevices } from './resolve-cdi-devices';
export { writeKubeletCheckpoint } from './write-kubelet-checkpoint';
export type { CheckpointedPod } from './write-kubelet-checkpoint';
