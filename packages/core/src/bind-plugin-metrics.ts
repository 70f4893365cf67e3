import type { DevicePlugin } from './device-plugin';
import type { PluginMetrics } from './metrics/plugin-metrics';

/** What the lifecycle drives in a metric set: the part of the runtime's `PluginMetrics` it calls. */
export type LifecycleMetricsSink = Pick<
  PluginMetrics,
  'setDevices' | 'registered' | 'reregistered' | 'setRegistered' | 'allocate' | 'streams' | 'removeResource'
>;

/**
 * Drives the contract metrics (and so the default /readyz) from a plugin's events: device lists, registrations,
 * re-registrations by their bounded reason, the registered gauge, Allocate outcome and latency, open streams,
 * added and removed resources. Returns the unsubscribe function.
 */
export function bindPluginMetrics(
  plugin: Pick<DevicePlugin, 'on' | 'resources'>,
  metrics: LifecycleMetricsSink,
): () => void {
  for (const resource of plugin.resources()) {
    metrics.setRegistered(resource.name, resource.state === 'registered');
  }
  return plugin.on((event) => {
    switch (event.type) {
      case 'state':
        metrics.setRegistered(event.resource, event.to === 'registered');
        break;
      case 'registered':
        metrics.registered(event.resource);
        if (event.reregistration) metrics.reregistered(event.resource, event.reason ?? 'unknown');
        break;
      case 'devices':
        metrics.setDevices(event.resource, event.devices);
        break;
      case 'allocate':
        metrics.allocate(event.resource, event.durationMs / 1000, event.outcome === 'ok');
        break;
      case 'stream-opened':
      case 'stream-closed':
        metrics.streams(event.resource, event.open);
        break;
      case 'resource-added':
        metrics.setRegistered(event.resource, false);
        break;
      case 'resource-removed':
        metrics.removeResource(event.resource);
        break;
      default:
        break;
    }
  });
}
