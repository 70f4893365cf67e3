import type { PluginDevice } from './plugin-device';

/** The effect of a device taint: keep new claims off the device, or also evict the pods already using it. */
export type DeviceTaintEffect = 'NoSchedule' | 'NoExecute';

/** Plugin-specific behaviour of a resource under Dynamic Resource Allocation (`serve --mode dra`); every member optional. */
export interface ResourceDraHooks<P = unknown> {
  /**
   * The effect of the `kdp.dev/unhealthy` taint an Unhealthy device gets in its ResourceSlice: `NoExecute` when the
   * device is lost to its pods (an Xid meaning the GPU fell off the bus), so they are evicted. Default `NoSchedule`.
   */
  readonly taintEffect?: (device: PluginDevice<P>) => DeviceTaintEffect;
}
