import type { DevicePluginEvent } from './plugin-events';

/** What the lifecycle drives in a metrics set (the runtime's `createPluginMetrics()` has this shape). */
export interface LifecycleMetricsSink {
  setDevices(resource: string, devices: readonly { readonly id: string; readonly health: string }[]): void;
  registered(resource: string): void;
  reregistered(resource: string, reason: string): void;
  setRegistered(resource: string, registered: boolean): void;
  allocate(resource: string, seconds: number, ok: boolean): void;
  streams(resource: string, open: number): void;
  removeResource(resource: string): void;
}

/**
 * Feeds a plugin's events into the contract metrics: device lists, registrations, re-registrations (counted when
 * they start, by reason), the registered gauge, Allocate outcome and latency, open streams, removed resources.
 * Returns the unsubscribe function.
 */
export function connectMetrics(
  plugin: { on(listener: (event: DevicePluginEvent) => void): () => void },
  sink: LifecycleMetricsSink,
): () => void {
  return plugin.on((event) => {
    switch (event.type) {
      case 'devices':
        sink.setDevices(event.resource, event.devices);
        break;
      case 'registered':
        sink.registered(event.resource);
        break;
      case 'state':
        if (event.to === 'registered') sink.setRegistered(event.resource, true);
        else if (event.from === 'registered') sink.setRegistered(event.resource, false);
        if (event.to === 'disconnected') sink.reregistered(event.resource, event.reason);
        break;
      case 'allocate':
        sink.allocate(event.resource, event.durationMs / 1000, event.outcome === 'ok');
        break;
      case 'stream-opened':
      case 'stream-closed':
        sink.streams(event.resource, event.open);
        break;
      case 'resource-removed':
        sink.removeResource(event.resource);
        break;
      default:
        break;
    }
  });
}
