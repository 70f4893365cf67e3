import type { Clock, LifecycleLogger } from '@kdp/base';
import type { AllocationTransform } from './allocate-containers';
import type { DeviceStore } from './device-store';
import type { DevicePluginEvent } from './plugin-events';
import type { ResourceDeclaration } from './resource-declaration';

/** A resource as its servers serve it: the declaration, its current devices, and where to report. */
export interface ServedResource<P> {
  readonly declaration: ResourceDeclaration<P>;
  readonly store: DeviceStore<P>;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
  /** The plugin-wide step applied to every container's allocation. */
  readonly transform?: AllocationTransform | undefined;
}
