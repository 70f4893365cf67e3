// @kdp/kubelet-sim/testing: helpers for tests that run plugins as processes. A separate entry point, so the
// simulator and its CLI never load esbuild.

export { bundleEntry } from './bundle-entry';
export type { BundleEntryOptions, EntryBundle } from './bundle-entry';
