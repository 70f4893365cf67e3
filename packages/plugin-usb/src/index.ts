// Public API of @kdp/plugin-usb: the plugin definition (run by its binary and by kdp-device-plugins), the
// configuration, USB discovery from sysfs (cached between scans) and its change probe, resource planning and
// topology, Allocate and the usb-package seam.
export { createUsbPlugin, usbPlugin } from './plugin';
export type { UsbPluginOptions } from './plugin';
export { usbConfigSchema } from './config';
export type { NodeKind, UsbConfig, UsbMatchRule } from './config';
export { scanUsbHost } from './scan/scan-usb-host';
export type { UsbHostScan, UsbHostScanOptions } from './scan/scan-usb-host';
export { createUsbScanCache, scanUsbDevices } from './scan/scan-usb-devices';
export type { UsbScan, UsbScanCache } from './scan/scan-usb-devices';
export { usbChangeProbe } from './scan/usb-change-probe';
export { readUsbDevice } from './scan/read-usb-device';
export type { UsbDeviceRead, UsbReadCaches, UsbStringCache } from './scan/read-usb-device';
export type { UsbDevice, UsbNode, UsbNodeKind } from './scan/usb-device';
export { loadUsbLibrary } from './scan/usb-library';
export type { DescriptorStrings, UsbLibrary, UsbLibraryLoad } from './scan/usb-library';
export { configuredResources } from './resources/configured-resources';
export type { ConfiguredResource } from './resources/configured-resources';
export { planResources } from './resources/plan-resources';
export { usbLocality } from './resources/usb-locality';
export type { UsbLocality } from './resources/usb-locality';
export type { UsbAllocate, UsbPlan } from './resources/plan-resources';
export type { DevicePayload, PathPayload, UsbPayload } from './resources/device-payload';
export { buildAllocation } from './allocate/build-allocation';
