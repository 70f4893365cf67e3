import type * as PromClient from 'prom-client';
import type { PluginMetrics } from './plugin-metrics';
import { createRegistrationReadiness } from './registration-readiness';

/**
 * The plugin metric set of a process without `--metrics-address`: nobody can read the series, so none are kept
 * and prom-client is not loaded; only the registration state that `readiness()` reports is tracked. `registry`
 * is an empty registry, made (and prom-client loaded) on first use by a serve mode that registers its own.
 */
export function createUnservedPluginMetrics(): PluginMetrics {
  const registeredState = createRegistrationReadiness();
  let registry: PromClient.Registry | undefined;
  const nothing = (): void => undefined;
  return {
    get registry() {
      // Loaded here only, so that a process without /metrics never evaluates prom-client.
      registry ??= new (require('prom-client') as typeof PromClient).Registry();
      return registry;
    },
    setDevices: nothing,
    registered: (resource) => registeredState.set(resource, true),
    reregistered: nothing,
    setRegistered: (resource, registered) => registeredState.set(resource, registered),
    allocate: nothing,
    streams: nothing,
    configReload: nothing,
    scan: nothing,
    removeResource: (resource) => registeredState.remove(resource),
    readiness: () => registeredState.readiness(),
  };
}
