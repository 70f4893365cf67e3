// Public API of @kdp/plugin-sriov: the plugin definition, as its binary and kdp-device-plugins run it.
// Test helpers are `@kdp/plugin-sriov/testing`; everything else is internal.
export { sriovPlugin } from './plugin';
