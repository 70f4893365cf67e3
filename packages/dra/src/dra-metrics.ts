import type { Clock } from '@kdp/base';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DraServeModeEvent } from './plugin-driver';

/** Prepare and unprepare latency buckets, in seconds: 1 ms to 30 s (the kubelet's deadline is 45 s). */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Publication latency buckets, in seconds: 10 ms to 5 min (retries back off to 30 s). */
const PUBLISH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The DRA mode's metrics, fed by its events and by the changes of the pools' device models. */
export interface DraMetrics {
  /** One event of a driver (prepare, unprepare, slice publication). */
  record(event: DraServeModeEvent): void;
  /** A pool's published devices changed (or the pool appeared): the publication latency counts from now. */
  poolChanged(driver: string, pool: string, devices: number): void;
}

/** Options of {@link createDraMetrics}. */
export interface DraMetricsOptions {
  /** The plugin process's registry (`context.metrics.registry`), served on `/metrics`. */
  readonly registry: Registry;
  readonly clock: Clock;
}

/**
 * Creates the DRA metrics in the process's registry: `kdp_dra_{prepare,unprepare}_calls_total{driver, outcome}`
 * (a call is `error` when it or any of its claims failed) and `…_claims_total{driver, outcome}`, their
 * `…_duration_seconds{driver}` histograms, `kdp_dra_publish_duration_seconds{driver}` (from a change of a pool's
 * devices to its slices written, retries included; a republication after someone deleted the slices is not
 * counted, the publisher's event carries no start), `kdp_dra_slice_publications_total{driver, outcome}`
 * (published, rejected, conflict, error) and the gauges `kdp_dra_resource_slices{driver, pool}` and
 * `kdp_dra_published_devices{driver, pool}` as last written.
 */
export function createDraMetrics(options: DraMetricsOptions): DraMetrics {
  const { clock } = options;
  const registers = [options.registry];
  /** The metrics of one kind of call (`prepare` → NodePrepareResources). */
  const callMetrics = (verb: 'prepare' | 'unprepare', rpc: string) => ({
    calls: new Counter({
      name: `kdp_dra_${verb}_calls_total`,
      help: `${rpc} calls, by outcome (error: the call or one of its claims failed).`,
      labelNames: ['driver', 'outcome'] as const,
      registers,
    }),
    claims: new Counter({
      name: `kdp_dra_${verb}_claims_total`,
      help: `Claims of ${rpc} calls, by outcome.`,
      labelNames: ['driver', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: `kdp_dra_${verb}_duration_seconds`,
      help: `Time to answer a ${rpc} call.`,
      labelNames: ['driver'] as const,
      buckets: CALL_BUCKETS,
      registers,
    }),
  });
  const byType = {
    prepared: callMetrics('prepare', 'NodePrepareResources'),
    unprepared: callMetrics('unprepare', 'NodeUnprepareResources'),
  };
  const publishDuration = new Histogram({
    name: 'kdp_dra_publish_duration_seconds',
    help: "Time from a change of a pool's devices to its ResourceSlices written.",
    labelNames: ['driver'] as const,
    buckets: PUBLISH_BUCKETS,
    registers,
  });
  const publications = new Counter({
    name: 'kdp_dra_slice_publications_total',
    help: 'ResourceSlice publications of a pool, by outcome (published, rejected, conflict, error).',
    labelNames: ['driver', 'outcome'] as const,
    registers,
  });
  const poolGauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['driver', 'pool'] as const, registers });
  const slices = poolGauge('kdp_dra_resource_slices', 'ResourceSlices of a pool as last written.');
  const devices = poolGauge(
    'kdp_dra_published_devices',
    'Devices of a pool as last written to its ResourceSlices.',
  );

  /** Per driver and pool: when its first change not yet written happened, and its device count now. */
  const pools = new Map<string, { since: number | undefined; devices: number }>();
  const key = (driver: string, pool: string): string => `${driver}\0${pool}`;

  return {
    poolChanged(driver, pool, count) {
      const entry = pools.get(key(driver, pool));
      pools.set(key(driver, pool), { since: entry?.since ?? clock.now(), devices: count });
    },
    record(event) {
      const { driver } = event;
      if (event.source === 'plugin') {
        if (event.type !== 'prepared' && event.type !== 'unprepared') return;
        const { calls, claims, duration } = byType[event.type];
        const failed = event.errors.length;
        calls.inc({ driver, outcome: failed > 0 ? 'error' : 'ok' });
        if (event.claims > failed) claims.inc({ driver, outcome: 'ok' }, event.claims - failed);
        if (failed > 0) claims.inc({ driver, outcome: 'error' }, failed);
        duration.observe({ driver }, event.durationMs / 1000);
        return;
      }
      if (event.type === 'removed') {
        pools.delete(key(driver, event.pool));
        slices.remove({ driver, pool: event.pool });
        devices.remove({ driver, pool: event.pool });
        return;
      }
      publications.inc({ driver, outcome: event.type });
      if (event.type !== 'published') return;
      const entry = pools.get(key(driver, event.pool));
      // Every content change rewrites all slices of the pool (a new generation): created + updated is all.
      slices.set({ driver, pool: event.pool }, event.created + event.updated);
      devices.set({ driver, pool: event.pool }, entry?.devices ?? 0);
      if (entry?.since !== undefined) {
        publishDuration.observe({ driver }, (clock.now() - entry.since) / 1000);
        pools.set(key(driver, event.pool), { since: undefined, devices: entry.devices });
      }
    },
  };
}
