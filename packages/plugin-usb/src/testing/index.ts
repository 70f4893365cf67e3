// Test helpers of @kdp/plugin-usb (`@kdp/plugin-usb/testing`): a fixture USB machine for the demo and the
// end-to-end suites. This package's own specs and benchmark import the modules directly.
export { createUsbFixture } from './usb-fixture';
export type { RootHubOptions, UsbDeviceSpec, UsbFixture, UsbInterfaceSpec } from './usb-fixture';
export { addSampleMachine, SAMPLE_DEVICES } from './sample-machine';
export type { UsbDeviceModel } from './sample-machine';
