// Public API of @kdp/plugin-usb: the CLI, discovery from sysfs, configuration, Allocate and the usb-package seam.

export {
  discoverUsb,
  runUsbPluginCli,
  usbAttributes,
  USB_PLUGIN_BINARY,
  USB_PLUGIN_VERSION,
} from './usb-plugin-cli';
export type { UsbPluginCliOptions } from './usb-plugin-cli';
export { computeInventory } from './compute-inventory';
export type { Inventory, InventoryOptions, ResourceInventory } from './compute-inventory';
export { scanUsbDevices, comparePortPaths } from './scan-usb-devices';
export type { SkippedUsbDevice, UsbScan } from './scan-usb-devices';
export { isRootHubName, isUsbDeviceName, readUsbDevice } from './read-usb-device';
export type { UsbDeviceRead, UsbStringCache } from './read-usb-device';
export { findInterfaceNodes } from './find-interface-nodes';
export type { InterfaceInfo } from './find-interface-nodes';
export { isHub, usbBusNodePath } from './usb-device';
export type { UsbDevice, UsbNode, UsbNodeKind } from './usb-device';
export {
  gdpDeviceSchema,
  nodeKindSchema,
  usbConfigSchema,
  usbMatchRuleSchema,
  usbResourceSchema,
} from './usb-config';
export type { NodeKind, UsbConfig, UsbMatchRule } from './usb-config';
export { toResourceSpecs } from './resource-spec';
export type { PathGroupSpec, PathSpec, ResourceSpec, UsbGroupSpec } from './resource-spec';
export { matchRules, ruleMismatch } from './match-usb-device';
export { globToRegExp, hasGlobSyntax } from './glob-pattern';
export type { GlobOptions } from './glob-pattern';
export { expandDevGlob } from './expand-dev-glob';
export { portId, sanitizeIdPart, shareIds, stableUsbId } from './stable-usb-id';
export { buildAllocation, envPrefix } from './usb-allocation';
export type { DevicePayload, PathPayload, UsbPayload } from './device-payload';
export { createHealthMemory } from './health-memory';
export type { HealthMemory } from './health-memory';
export { refreshPayload } from './refresh-payload';
export { createUsbDeviceSources } from './usb-device-sources';
export type { UsbDeviceSources, UsbDeviceSourcesOptions } from './usb-device-sources';
export { createDescriptorEnricher, loadUsbLibrary } from './usb-library';
export type { DescriptorStrings, UsbLibrary, UsbLibraryLoad } from './usb-library';
