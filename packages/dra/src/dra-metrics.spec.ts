import { createFakeClock } from '@kdp/kubelet-sim';
import { Registry } from 'prom-client';
import { createDraMetrics } from './dra-metrics';

describe('createDraMetrics', () => {
  /** A sample by its series name (`…_bucket`, `…_sum` of a histogram) and labels. */
  const value = async (registry: Registry, name: string, labels: Record<string, string | number>) => {
    const samples = (await registry.getMetricsAsJSON()).flatMap((metric) =>
      metric.values.map((v) => ({ ...v, series: (v as { metricName?: string }).metricName ?? metric.name })),
    );
    const sample = samples.find(
      (v) =>
        v.series === name &&
        Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
    );
    return sample?.value;
  };

  it('counts prepare and unprepare calls and claims by outcome, with their latency', async () => {
    const registry = new Registry();
    const metrics = createDraMetrics({ registry, clock: createFakeClock() });
    const driver = 'gpu.kdp.dev';
    metrics.record({ driver, source: 'plugin', type: 'prepared', claims: 3, errors: ['x'], durationMs: 20 });
    metrics.record({ driver, source: 'plugin', type: 'prepared', claims: 1, errors: [], durationMs: 4 });
    metrics.record({ driver, source: 'plugin', type: 'unprepared', claims: 2, errors: [], durationMs: 2 });
    expect(await value(registry, 'kdp_dra_prepare_calls_total', { driver, outcome: 'error' })).toBe(1);
    expect(await value(registry, 'kdp_dra_prepare_calls_total', { driver, outcome: 'ok' })).toBe(1);
    expect(await value(registry, 'kdp_dra_prepare_claims_total', { driver, outcome: 'ok' })).toBe(3);
    expect(await value(registry, 'kdp_dra_prepare_claims_total', { driver, outcome: 'error' })).toBe(1);
    expect(await value(registry, 'kdp_dra_unprepare_claims_total', { driver, outcome: 'ok' })).toBe(2);
    expect(await value(registry, 'kdp_dra_prepare_duration_seconds_bucket', { driver, le: 0.005 })).toBe(1);
    expect(await value(registry, 'kdp_dra_prepare_duration_seconds_sum', { driver })).toBeCloseTo(0.024);
    expect(await value(registry, 'kdp_dra_unprepare_duration_seconds_count', { driver })).toBe(1);
  });

  it('measures publication from the change of a pool to its slices written, and the slices and devices', async () => {
    const registry = new Registry();
    const clock = createFakeClock();
    const metrics = createDraMetrics({ registry, clock });
    const driver = 'usb.kdp.dev';
    const pool = 'node-a/example.com/stick';
    metrics.poolChanged(driver, pool, 130);
    clock.advance(250);
    metrics.poolChanged(driver, pool, 131); // a second change before the write: counted from the first
    clock.advance(250);
    metrics.record({ driver, source: 'slices', type: 'conflict', pool, message: '409' });
    metrics.record({
      driver,
      source: 'slices',
      type: 'published',
      pool,
      generation: 2,
      created: 1,
      updated: 1,
      deleted: 0,
    });
    expect(await value(registry, 'kdp_dra_publish_duration_seconds_sum', { driver })).toBeCloseTo(0.5);
    expect(await value(registry, 'kdp_dra_resource_slices', { driver, pool })).toBe(2);
    expect(await value(registry, 'kdp_dra_published_devices', { driver, pool })).toBe(131);
    expect(await value(registry, 'kdp_dra_slice_publications_total', { driver, outcome: 'conflict' })).toBe(
      1,
    );
    // A republication nobody asked for (slices deleted by the kubelet) is no latency sample.
    metrics.record({
      driver,
      source: 'slices',
      type: 'published',
      pool,
      generation: 3,
      created: 2,
      updated: 0,
      deleted: 0,
    });
    expect(await value(registry, 'kdp_dra_publish_duration_seconds_count', { driver })).toBe(1);
    expect(await value(registry, 'kdp_dra_slice_publications_total', { driver, outcome: 'published' })).toBe(
      2,
    );
    metrics.record({ driver, source: 'slices', type: 'removed', pool, deleted: 2 });
    expect(await value(registry, 'kdp_dra_resource_slices', { driver, pool })).toBeUndefined();
  });
});
