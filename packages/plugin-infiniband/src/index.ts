// Public API of @kdp/plugin-infiniband: the plugin definition, as its binary and kdp-device-plugins run it.
// Test helpers are `@kdp/plugin-infiniband/testing`; everything else is internal.
export { infinibandPlugin } from './plugin';
