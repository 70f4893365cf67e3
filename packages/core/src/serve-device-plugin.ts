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

/** What {@link serveDevicePlugin} needs of `serve`'s context (a `ServeContext` has it). */
export interface ServeDevicePluginContext {
  readonly metrics: LifecycleMetricsSink;
  /** Fires on SIGTERM/SIGINT; create the plugin with `handleSignals: false` so only this one stops it. */
  readonly signal: AbortSignal;
}

/**
 * Runs a device plugin for a `serve` command: metrics and readiness follow its events, it starts, and it stops
 * (streams ended, sockets unlinked) when the signal fires or it stops by itself; resolves once it has stopped.
 */
export async function serveDevicePlugin(ctx: ServeDevicePluginContext, plugin: DevicePlugin): Promise<void> {
  const unbind = bindPluginMetrics(plugin, ctx.metrics);
  const aborted = new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  // The lifecycle's timers are unref'd and fs watchers may not hold the event loop, so while the plugin
  // waits for a restarting kubelet nothing else keeps the process alive: this timer does, until it stops.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    await plugin.start();
    await Promise.race([aborted, plugin.stopped]);
  } finally {
    clearInterval(keepAlive);
    await plugin.stop();
    unbind();
  }
}
