import type { ProbeResult } from '@kdp/base';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createRegistrationReadiness } from './registration-readiness';

/** Options for {@link createPluginMetrics}. */
export interface PluginMetricsOptions {
  /** Registry to register into (default: a new one, exposed as `registry`). */
  readonly registry?: Registry;
  /** Adds `kdp_build_info{plugin, version}` = 1. */
  readonly build?: { readonly plugin: string; readonly version: string };
  /** Also collect the process and Node.js metrics (`process_resident_memory_bytes`, …). Default false. */
  readonly defaultMetrics?: boolean;
}

/** The metrics every kdp plugin exports (see the metrics contract), driven by the lifecycle through methods. */
export interface PluginMetrics {
  /** The registry holding them; serve it with `startMetricsServer`. */
  readonly registry: Registry;
  /** Sets `kdp_device_health` per device (series of vanished devices removed) and `kdp_devices` per health. */
  setDevices(resource: string, devices: readonly { readonly id: string; readonly health: string }[]): void;
  /** A successful registration: `kdp_registrations_total` + 1 and `kdp_resource_registered` = 1. */
  registered(resource: string): void;
  /** A re-registration was started (`kubelet-restart`, `stream-ended`, `socket-removed`, …). */
  reregistered(resource: string, reason: string): void;
  /** Sets `kdp_resource_registered` (1 or 0); also what `readiness()` reports. */
  setRegistered(resource: string, registered: boolean): void;
  /** One Allocate call: its duration in seconds and whether it succeeded. */
  allocate(resource: string, seconds: number, ok: boolean): void;
  /** The number of open ListAndWatch streams. */
  streams(resource: string, open: number): void;
  /** A configuration reload: `kdp_config_reloads_total{outcome}`. */
  configReload(ok: boolean): void;
  /** A full scan of a plugin and what started it, or a change probe that found nothing changed (`unchanged`). */
  scan(plugin: string, trigger: string): void;
  /** Forgets a resource that was removed at run time: every series labelled with it. */
  removeResource(resource: string): void;
  /** Readiness from `setRegistered`: ok when every known resource is registered (vacuously when none). */
  readiness(): ProbeResult;
}

/** Allocate latency buckets, in seconds: 0.5 ms to 2.5 s. */
const ALLOCATE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Creates the plugin metric set in a registry of its own (or the one given). */
export function createPluginMetrics(options: PluginMetricsOptions = {}): PluginMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers });

  const deviceHealth = gauge(
    'kdp_device_health',
    'Health of each advertised device: 1 Healthy, 0 Unhealthy.',
    ['resource', 'device'],
  );
  const devices = gauge('kdp_devices', 'Advertised devices per resource and health.', ['resource', 'health']);
  const resourceRegistered = gauge(
    'kdp_resource_registered',
    '1 while the resource is registered with the kubelet, else 0.',
    ['resource'],
  );
  const registrations = counter('kdp_registrations_total', 'Successful registrations with the kubelet.', [
    'resource',
  ]);
  const reregistrations = counter('kdp_reregistrations_total', 'Re-registrations, by what triggered them.', [
    'resource',
    'reason',
  ]);
  const allocateRequests = counter(
    'kdp_allocate_requests_total',
    'Allocate calls, by outcome (ok or error).',
    ['resource', 'outcome'],
  );
  const allocateDuration = new Histogram({
    name: 'kdp_allocate_duration_seconds',
    help: 'Time to answer an Allocate call.',
    labelNames: ['resource'] as const,
    buckets: ALLOCATE_BUCKETS,
    registers,
  });
  const streamGauge = gauge('kdp_list_and_watch_streams', 'Open ListAndWatch streams.', ['resource']);
  const configReloads = counter(
    'kdp_config_reloads_total',
    'Configuration reloads, by outcome (ok or error).',
    ['outcome'],
  );
  const scans = counter(
    'kdp_scans_total',
    'Full scans per plugin, by what started them (start, watch, rescan, interval, probe).',
    ['plugin', 'trigger'],
  );
  const probes = counter('kdp_change_probes_total', 'Change probes per plugin, by outcome.', [
    'plugin',
    'outcome',
  ]);
  if (options.build) {
    gauge('kdp_build_info', 'Always 1; the labels say which plugin and version runs.', [
      'plugin',
      'version',
      'node_version',
    ]).set(
      { plugin: options.build.plugin, version: options.build.version, node_version: process.version },
      1,
    );
  }
  // The event-loop delay monitor wakes the process at its precision: once a second, not every 10 ms at idle.
  if (options.defaultMetrics)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });

  const knownDevices = new Map<string, Set<string>>();
  const registeredState = createRegistrationReadiness();
  const reasons = new Map<string, Set<string>>();

  const setRegistered = (resource: string, value: boolean): void => {
    registeredState.set(resource, value);
    resourceRegistered.set({ resource }, value ? 1 : 0);
  };

  return {
    registry,
    setDevices(resource, list) {
      const previous = knownDevices.get(resource) ?? new Set<string>();
      const current = new Set<string>();
      let healthy = 0;
      for (const device of list) {
        const ok = device.health === 'Healthy';
        if (ok) healthy++;
        current.add(device.id);
        deviceHealth.set({ resource, device: device.id }, ok ? 1 : 0);
      }
      for (const id of previous) if (!current.has(id)) deviceHealth.remove({ resource, device: id });
      knownDevices.set(resource, current);
      devices.set({ resource, health: 'Healthy' }, healthy);
      devices.set({ resource, health: 'Unhealthy' }, list.length - healthy);
    },
    registered(resource) {
      registrations.inc({ resource });
      setRegistered(resource, true);
    },
    reregistered(resource, reason) {
      reregistrations.inc({ resource, reason });
      reasons.set(resource, (reasons.get(resource) ?? new Set<string>()).add(reason));
    },
    setRegistered,
    allocate(resource, seconds, ok) {
      allocateRequests.inc({ resource, outcome: ok ? 'ok' : 'error' });
      allocateDuration.observe({ resource }, seconds);
    },
    streams(resource, open) {
      streamGauge.set({ resource }, open);
    },
    scan(plugin, trigger) {
      if (trigger === 'unchanged') probes.inc({ plugin, outcome: 'unchanged' });
      else {
        if (trigger === 'probe') probes.inc({ plugin, outcome: 'changed' });
        scans.inc({ plugin, trigger });
      }
    },
    configReload(ok) {
      configReloads.inc({ outcome: ok ? 'ok' : 'error' });
    },
    removeResource(resource) {
      // prom-client removes series by their full label set only.
      for (const metric of [resourceRegistered, registrations, allocateDuration, streamGauge])
        metric.remove({ resource });
      for (const reason of reasons.get(resource) ?? []) reregistrations.remove({ resource, reason });
      for (const outcome of ['ok', 'error']) allocateRequests.remove({ resource, outcome });
      for (const id of knownDevices.get(resource) ?? []) deviceHealth.remove({ resource, device: id });
      for (const health of ['Healthy', 'Unhealthy']) devices.remove({ resource, health });
      knownDevices.delete(resource);
      reasons.delete(resource);
      registeredState.remove(resource);
    },
    readiness: () => registeredState.readiness(),
  };
}
