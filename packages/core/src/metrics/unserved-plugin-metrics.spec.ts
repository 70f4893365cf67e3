import { Registry } from 'prom-client';
import { createUnservedPluginMetrics } from './unserved-plugin-metrics';

describe('createUnservedPluginMetrics', () => {
  it('reports readiness from the registrations, as the served metric set does', () => {
    const metrics = createUnservedPluginMetrics();
    metrics.setRegistered('example.com/a', false);
    metrics.setRegistered('example.com/b', false);
    expect(metrics.readiness()).toEqual({
      ok: false,
      message: 'not registered: example.com/a, example.com/b',
    });
    metrics.registered('example.com/a');
    metrics.removeResource('example.com/b');
    expect(metrics.readiness()).toEqual({ ok: true, message: 'ready' });
  });

  it('keeps no series: its registry, made on first use, stays empty whatever it is told', async () => {
    const metrics = createUnservedPluginMetrics();
    metrics.setDevices('example.com/a', [{ id: 'd0', health: 'Healthy' }]);
    metrics.registered('example.com/a');
    metrics.reregistered('example.com/a', 'kubelet-restart');
    metrics.allocate('example.com/a', 0.001, true);
    metrics.streams('example.com/a', 1);
    metrics.configReload(true);
    metrics.scan('test', 'start');
    const registry = metrics.registry;
    expect(registry).toBeInstanceOf(Registry);
    expect(metrics.registry).toBe(registry);
    expect((await registry.metrics()).trim()).toBe('');
  });
});
