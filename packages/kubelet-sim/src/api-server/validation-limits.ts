/** resource.k8s.io/v1 validation limits, as upstream's `pkg/apis/resource` defines them. */

/** Devices per ResourceSlice. */
export const ResourceSliceMaxDevices = 128;
/** Devices per ResourceSlice when a device has taints or consumes counters. */
export const ResourceSliceMaxDevicesWithAdvancedFeatures = 64;
/** Attributes plus capacities per device. */
export const ResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
/** Length of a string or version attribute value. */
export const DeviceAttributeMaxValueLength = 64;
/** Length of a DRA driver name (and of an attribute's domain). */
export const DriverNameMaxLength = 63;
/** Length of an attribute's identifier after the domain. */
export const DeviceMaxIdLength = 32;
/** Length of a pool name. */
export const PoolNameMaxLength = 253;
/** Requests per claim, results per allocation, selectors and configs per class. */
export const DeviceRequestsMaxSize = 32;
/** Consumers in `status.reservedFor`. */
export const ResourceClaimReservedForMaxSize = 256;
/** Opaque parameters per config, in bytes. */
export const OpaqueParametersMaxLength = 10 * 1024;
/** Counter sets per ResourceSlice (`sharedCounters`). */
export const ResourceSliceMaxCounterSets = 8;
/** Counters per counter set. */
export const ResourceSliceMaxCountersPerCounterSet = 32;
/** Counter consumptions per device (`consumesCounters`). */
export const ResourceSliceMaxDeviceCounterConsumptionsPerDevice = 2;
/** Counters per device counter consumption. */
export const ResourceSliceMaxCountersPerDeviceCounterConsumption = 32;
