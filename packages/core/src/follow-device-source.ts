import type { Clock, LifecycleLogger } from '@kdp/base';
import type { DeviceSource } from './device-source';
import type { DeviceStore } from './device-store';
import type { DevicePluginEvent } from './plugin-events';

/** What {@link followDeviceSource} connects. */
export interface FollowDeviceSourceOptions<P> {
  readonly resource: string;
  readonly source: DeviceSource<P>;
  readonly store: DeviceStore<P>;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
}

/** Puts every list of `source` into `store`, reporting a `devices` event per change; returns the unsubscribe. */
export function followDeviceSource<P>(options: FollowDeviceSourceOptions<P>): () => void {
  const { resource, store, clock, logger, emit } = options;
  return options.source.subscribe((list) => {
    const { changed, warnings } = store.set(list);
    for (const warning of warnings) logger.warn({ resource }, warning);
    if (!changed) return;
    const devices = [...store.devices().values()];
    const healthy = devices.filter((d) => d.health === 'Healthy').length;
    emit({
      type: 'devices',
      resource,
      at: clock.now(),
      devices,
      healthy,
      unhealthy: devices.length - healthy,
      warnings,
    });
  });
}
