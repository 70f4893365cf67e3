// Public API of @kdp/plugin-fpga: the plugin definition, as its binary and kdp-device-plugins run it.
// Test helpers are `@kdp/plugin-fpga/testing`; everything else is internal.
export { fpgaPlugin } from './plugin';
