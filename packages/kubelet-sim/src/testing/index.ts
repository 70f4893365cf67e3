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
