// Public API of @kdp/plugin-gpu: the plugin definition, as its binary and kdp-device-plugins run it.
// Test helpers are `@kdp/plugin-gpu/testing`; everything else is internal.
export { gpuPlugin } from './plugin';
export { runConfigManager } from './config-manager/run-config-manager';
export type { ConfigManagerIo } from './config-manager/run-config-manager';
