// Test helpers of @kdp/plugin-usb (`@kdp/plugin-usb/testing`): a fixture USB machine and a generated large tree,
// for this package's tests, the benchmark, the demo and the end-to-end suites.
export { createUsbFixture } from './usb-fixture';
export type { RootHubOptions, UsbDeviceSpec, UsbFixture, UsbInterfaceSpec } from './usb-fixture';
export { addSampleMachine, SAMPLE_CONFIG, SAMPLE_DEVICES } from './sample-machine';
export type { UsbDeviceModel } from './sample-machine';
export { generateUsbTree } from './generate-usb-tree';
export type { GeneratedTree } from './generate-usb-tree';
export { defined } from './defined';
