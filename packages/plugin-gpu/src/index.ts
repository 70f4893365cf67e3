// Public API of @kdp/plugin-gpu: the plugin definition (run by its binary and by kdp-device-plugins), the
// scan of NVIDIA, AMD and Intel GPUs, resource planning, Allocate and Xid health.
export { createGpuPlugin, gpuPlugin } from './plugin';
export type { GpuPluginOptions } from './plugin';
export { gpuConfigSchema } from './config';
export type { GpuConfig } from './config';
export { scanGpus } from './scan/scan-gpus';
export type { Gpu, GpuCandidate, GpuKind, GpuMount, GpuScan, MigPlacement } from './scan/gpu';
export { planResources } from './resources/plan-resources';
export type { GpuPayload } from './resources/plan-resources';
export { resourceNameOf } from './resources/resource-names';
export {
  allocateGpus,
  gpuCdiName,
  nvidiaDeviceListStrategy,
  nvidiaVisibleDevices,
} from './allocate/allocate-gpus';
export { preferredAllocation } from './allocate/preferred-allocation';
export { gpuChangeProbe } from './scan/gpu-change-probe';
export type { XidEvent, XidEventSource, XidSourceFactory } from './health/xid-health';
export { loadNvmlXidSource } from './health/nvml-xid-source';
export { runConfigManager } from './config-manager/run-config-manager';
export type { ConfigManagerIo } from './config-manager/run-config-manager';
