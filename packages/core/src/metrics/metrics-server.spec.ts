import { createServer } from 'node:net';
import { createPluginMetrics } from './plugin-metrics';
import { startMetricsServer, type MetricsServer } from './metrics-server';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`${server?.url}${path}`, { method });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('startMetricsServer', () => {
  it('binds port 0 and reports the real address', async () => {
    const metrics = createPluginMetrics();
    server = await startMetricsServer({ address: '127.0.0.1:0', registry: metrics.registry });
    expect(server.address.host).toBe('127.0.0.1');
    expect(server.address.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.address.port}`);
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const metrics = createPluginMetrics();
    metrics.setDevices('example.com/dev', [{ id: 'd0', health: 'Healthy' }]);
    server = await startMetricsServer({ address: '127.0.0.1:0', registry: metrics.registry });
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('kdp_device_health{resource="example.com/dev",device="d0"} 1\n');
    expect((await get('/metrics?x=1', 'HEAD')).status).toBe(200);
  });

  it('answers /healthz 200 and /readyz 503 naming what is not registered, then 200', async () => {
    const metrics = createPluginMetrics();
    metrics.setRegistered('example.com/a', false);
    metrics.setRegistered('example.com/b', false);
    server = await startMetricsServer({
      address: '127.0.0.1:0',
      registry: metrics.registry,
      readiness: metrics.readiness,
    });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: 'not registered: example.com/a, example.com/b\n',
    });
    metrics.registered('example.com/a');
    metrics.registered('example.com/b');
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
  });

  it('uses the probes it is given; a throwing probe is a 503', async () => {
    const metrics = createPluginMetrics();
    server = await startMetricsServer({
      address: '127.0.0.1:0',
      registry: metrics.registry,
      liveness: async () => ({ ok: false, message: 'event loop stuck' }),
    });
    expect(await get('/healthz')).toMatchObject({ status: 503, body: 'event loop stuck\n' });
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
    server.setReadiness(() => {
      throw new Error('no kubelet');
    });
    expect(await get('/readyz')).toMatchObject({ status: 503, body: 'probe failed: no kubelet\n' });
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    server = await startMetricsServer({ address: '127.0.0.1:0', registry: createPluginMetrics().registry });
    expect((await get('/')).status).toBe(404);
    expect((await get('/metrics/x')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });

  it('rejects a malformed address and one in use', async () => {
    const registry = createPluginMetrics().registry;
    await expect(startMetricsServer({ address: 'nope', registry })).rejects.toThrow(
      '"nope" is not HOST:PORT',
    );
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startMetricsServer({ address: `127.0.0.1:${port}`, registry })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      );
    } finally {
      blocker.close();
    }
  });
});
