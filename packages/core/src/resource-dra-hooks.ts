import type { ResourceClaimConfig } from './claim-config-schema';

/** Optional behaviour of a resource under Dynamic Resource Allocation (`serve --mode dra`); the device-plugin mode ignores it. */
export interface ResourceDraHooks<P = unknown> {
  /**
   * The typed per-claim configuration the resource takes (`opaque.parameters` of its driver) and how it applies at
   * prepare. Absent: an opaque configuration for a device of this resource fails the claim.
   */
  readonly config?: ResourceClaimConfig<P>;
}
