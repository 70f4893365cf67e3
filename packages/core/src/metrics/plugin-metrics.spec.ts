import { Registry } from 'prom-client';
import { createPluginMetrics } from './plugin-metrics';

/** The sample lines of the exposition text (no comments), for exact comparisons. */
async function samples(registry: Registry, prefix = 'kdp_'): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith(prefix));
}

describe('createPluginMetrics', () => {
  it('exports the contract names, all valid Prometheus names, with help and type', async () => {
    const metrics = createPluginMetrics({ build: { plugin: 'test-plugin', version: '1.2.3' } });
    const text = await metrics.registry.metrics();
    const names = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(names).toEqual([
      'kdp_device_health gauge',
      'kdp_devices gauge',
      'kdp_resource_registered gauge',
      'kdp_registrations_total counter',
      'kdp_reregistrations_total counter',
      'kdp_allocate_requests_total counter',
      'kdp_allocate_duration_seconds histogram',
      'kdp_list_and_watch_streams gauge',
      'kdp_config_reloads_total counter',
      'kdp_scans_total counter',
      'kdp_change_probes_total counter',
      'kdp_build_info gauge',
    ]);
    for (const name of names) expect(name.split(' ')[0]).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
    expect(text).toContain(
      `kdp_build_info{plugin="test-plugin",version="1.2.3",node_version="${process.version}"} 1`,
    );
  });

  it('tracks devices by health, removing the series of devices that disappear', async () => {
    const metrics = createPluginMetrics();
    metrics.setDevices('example.com/dev', [
      { id: 'd0', health: 'Healthy' },
      { id: 'd1', health: 'Unhealthy' },
      { id: 'd2', health: 'Healthy' },
    ]);
    metrics.setDevices('example.com/dev', [
      { id: 'd1', health: 'Healthy' },
      { id: 'd2', health: 'Unhealthy' },
    ]);
    expect(await samples(metrics.registry, 'kdp_device')).toEqual([
      'kdp_device_health{resource="example.com/dev",device="d1"} 1',
      'kdp_device_health{resource="example.com/dev",device="d2"} 0',
      'kdp_devices{resource="example.com/dev",health="Healthy"} 1',
      'kdp_devices{resource="example.com/dev",health="Unhealthy"} 1',
    ]);
  });

  it('counts registrations, re-registrations, Allocate outcomes and latency, streams and reloads', async () => {
    const metrics = createPluginMetrics();
    const r = 'example.com/dev';
    metrics.setRegistered(r, false);
    metrics.registered(r);
    metrics.reregistered(r, 'kubelet-restart');
    metrics.reregistered(r, 'kubelet-restart');
    metrics.reregistered(r, 'stream-ended');
    metrics.registered(r);
    metrics.allocate(r, 0.0004, true);
    metrics.allocate(r, 0.003, false);
    metrics.streams(r, 2);
    metrics.configReload(true);
    metrics.configReload(false);
    const lines = await samples(metrics.registry);
    expect(lines).toEqual(
      expect.arrayContaining([
        `kdp_resource_registered{resource="${r}"} 1`,
        `kdp_registrations_total{resource="${r}"} 2`,
        `kdp_reregistrations_total{resource="${r}",reason="kubelet-restart"} 2`,
        `kdp_reregistrations_total{resource="${r}",reason="stream-ended"} 1`,
        `kdp_allocate_requests_total{resource="${r}",outcome="ok"} 1`,
        `kdp_allocate_requests_total{resource="${r}",outcome="error"} 1`,
        `kdp_allocate_duration_seconds_bucket{le="0.0005",resource="${r}"} 1`,
        `kdp_allocate_duration_seconds_bucket{le="0.0025",resource="${r}"} 1`,
        `kdp_allocate_duration_seconds_bucket{le="0.005",resource="${r}"} 2`,
        `kdp_allocate_duration_seconds_bucket{le="+Inf",resource="${r}"} 2`,
        `kdp_allocate_duration_seconds_count{resource="${r}"} 2`,
        `kdp_list_and_watch_streams{resource="${r}"} 2`,
        'kdp_config_reloads_total{outcome="ok"} 1',
        'kdp_config_reloads_total{outcome="error"} 1',
      ]),
    );
    expect(lines.find((l) => l.startsWith('kdp_allocate_duration_seconds_sum'))).toMatch(/ 0\.0034\d*$/);
  });

  it('reports readiness from the registered state and forgets removed resources entirely', async () => {
    const metrics = createPluginMetrics();
    expect(metrics.readiness()).toEqual({ ok: true, message: 'ready' });
    metrics.setRegistered('b.com/y', false);
    metrics.setRegistered('a.com/x', false);
    expect(metrics.readiness()).toEqual({ ok: false, message: 'not registered: a.com/x, b.com/y' });
    metrics.registered('a.com/x');
    expect(metrics.readiness()).toEqual({ ok: false, message: 'not registered: b.com/y' });
    metrics.setDevices('b.com/y', [{ id: 'd0', health: 'Healthy' }]);
    metrics.reregistered('b.com/y', 'socket-removed');
    metrics.allocate('b.com/y', 0.001, true);
    metrics.allocate('b.com/y', 0.001, false);
    metrics.streams('b.com/y', 1);
    metrics.removeResource('b.com/y');
    expect(metrics.readiness()).toEqual({ ok: true, message: 'ready' });
    expect((await samples(metrics.registry)).filter((l) => l.includes('b.com/y'))).toEqual([]);
  });

  it('registers into a given registry and can add the process metrics', async () => {
    const registry = new Registry();
    createPluginMetrics({ registry, defaultMetrics: true });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE kdp_devices gauge');
    expect(text).toContain('process_resident_memory_bytes');
  });
});
