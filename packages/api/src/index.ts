/**
 * The kubelet's gRPC APIs and the rules around them: the device-plugin API (v1beta1 flat, v1alpha as a
 * namespace), pod-resources, plugin registration and Dynamic Resource Allocation (DRAPlugin v1 and v1beta1,
 * DRAResourceHealth v1alpha1 and v1), generated for @grpc/grpc-js, plus the kubelet's constants and its
 * resource-name check.
 *
 * @packageDocumentation
 * @module @kdp/api
 */

export {
  CheckpointFileName,
  DeviceIdMaxLength,
  DevicePluginPath,
  DevicePluginType,
  EndpointStopGracePeriodMs,
  Healthy,
  KubeletSocketName,
  PluginDialTimeoutMs,
  PluginsRegistryPath,
  PodResourcesSocket,
  PreStartContainerTimeoutSeconds,
  SupportedVersions,
  UnixSocketPathMaxBytes,
  Unhealthy,
  V1alphaVersion,
  Version,
} from './constants';
export { validateResourceName } from './validate-resource-name';
export type { ResourceNameValidation } from './validate-resource-name';

// Device plugin API v1beta1 (proto package `v1beta1`): messages, services and clients.
export {
  AllocateRequest,
  AllocateResponse,
  CDIDevice,
  ContainerAllocateRequest,
  ContainerAllocateResponse,
  ContainerPreferredAllocationRequest,
  ContainerPreferredAllocationResponse,
  Device,
  DevicePluginClient,
  DevicePluginOptions,
  DevicePluginService,
  DeviceSpec,
  Empty,
  ListAndWatchResponse,
  Mount,
  NUMANode,
  PreferredAllocationRequest,
  PreferredAllocationResponse,
  PreStartContainerRequest,
  PreStartContainerResponse,
  RegisterRequest,
  RegistrationClient,
  RegistrationService,
  TopologyInfo,
} from './gen/deviceplugin/v1beta1/api';
export type { DevicePluginServer } from './gen/deviceplugin/v1beta1/api';

// The other APIs, one namespace each because their message names overlap with v1beta1's and each other's.
/** Device plugin API v1alpha (proto package `deviceplugin`, version string `v1alpha2`). */
export * as v1alpha from './gen/deviceplugin/v1alpha/api';
/** Pod-resources API v1 (proto package `v1`), served by the kubelet for monitoring agents. */
export * as podresources from './gen/podresources/v1/api';
/** Plugin-watcher registration API v1 (proto package `pluginregistration`). */
export * as pluginregistration from './gen/pluginregistration/v1/api';
/** DRA kubelet plugin API v1 (proto package `k8s.io.kubelet.pkg.apis.dra.v1`, named `v1.DRAPlugin` at registration). */
export * as draV1 from './gen/dra/v1/api';
/** DRA kubelet plugin API v1beta1 (proto package `k8s.io.kubelet.pkg.apis.dra.v1beta1`, `v1beta1.DRAPlugin`). */
export * as draV1beta1 from './gen/dra/v1beta1/api';
/** DRA device health API v1alpha1 (proto package `v1alpha1`, service `v1alpha1.DRAResourceHealth`). */
export * as draHealthV1alpha1 from './gen/dra-health/v1alpha1/api';
/** DRA device health API v1 (proto package `v1`, the same as podresources'; `v1.DRAResourceHealth`). */
export * as draHealthV1 from './gen/dra-health/v1/api';
/** resource.k8s.io/v1beta1 request and slice-device shapes to and from v1's. */
export {
  deviceRequestFromV1beta1,
  deviceRequestToV1beta1,
  sliceDeviceFromV1beta1,
  sliceDeviceToV1beta1,
} from './resource-v1beta1-shapes';
export { nodeSelectorMatches } from './node-selector-matches';
export type { NodeSelectorLike, NodeSelectorRequirementLike } from './node-selector-matches';
