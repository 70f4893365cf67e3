// Public API of @kdp/plugin-usb: the plugin definition (run by its binary and by kdp-device-plugins), the
// configuration, USB discovery from sysfs, resource planning, Allocate and the usb-package seam.
export { createUsbPlugin, usbPlugin } from './plugin';
export type { UsbPluginOptions } from './plugin';
export { usbConfigSchema } from './config';
export type { NodeKind, UsbConfig, UsbMatchRule } from './config';
export { scanUsbHost } from './scan/scan-usb-host';
export type { UsbHostScan, UsbHostScanOptions } from './scan/scan-usb-host';
export { readUsbDevice } from './scan/read-usb-device';
export type { UsbDeviceRead, UsbStringCache } from './scan/read-usb-device';
export type { UsbDevice, UsbNode, UsbNodeKind } from './scan/usb-device';
export { loadUsbLibrary } from './scan/usb-library';
export type { DescriptorStrings, UsbLibrary, UsbLibraryLoad } from './scan/usb-library';
export { configuredResources } from './resources/configured-resources';
export type { ConfiguredResource } from './resources/configured-resources';
export { planResources } from './resources/plan-resources';
export type { UsbAllocate, UsbPlan } from './resources/plan-resources';
export type { DevicePayload, PathPayload, UsbPayload } from './resources/device-payload';
export { buildAllocation } from './allocate/build-allocation';
