// Public API of @kdp/demo: the sample node the demo runs its plugins against.

export { createSampleNode } from './sample-node/create-sample-node';
export type { DeviceFault, SampleNode } from './sample-node/create-sample-node';
export type { ExpectedResource } from './sample-node/sample-configs';
export { PLUGIN_NAMES } from './plugin-names';
export { allInOneServeArgs, pluginServeArgs } from './plugin-processes';
export type { PluginDirs } from './plugin-processes';
export type { PluginName } from './plugin-names';
