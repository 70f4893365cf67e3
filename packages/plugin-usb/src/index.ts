// Public API of @kdp/plugin-usb: the plugin definition, as its binary and kdp-device-plugins run it.
// Test helpers are `@kdp/plugin-usb/testing`; everything else is internal.
export { usbPlugin } from './plugin';
