import { Gauge, Registry } from 'prom-client';
import { startMetricsServer, type MetricsServer } from './metrics-server';

describe('startMetricsServer', () => {
  let server: MetricsServer;
  let ready = { ready: false, reason: 'no successful poll yet' };
  beforeAll(async () => {
    const registry = new Registry();
    new Gauge({ name: 'kdp_example', help: 'Example.', registers: [registry] }).set(3);
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry, readiness: () => ready });
  });
  afterAll(() => server.close());

  const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${server.port}${path}`, { method });

  it('serves the registry in the Prometheus text format', async () => {
    const response = await get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain('kdp_example 3');
  });

  it('answers /healthz always and /readyz from the readiness callback', async () => {
    expect((await get('/healthz')).status).toBe(200);
    const notReady = await get('/readyz');
    expect([notReady.status, await notReady.text()]).toEqual([503, 'no successful poll yet\n']);
    ready = { ready: true, reason: 'ok' };
    expect((await get('/readyz?verbose')).status).toBe(200);
  });

  it('refuses other paths and methods', async () => {
    expect((await get('/')).status).toBe(404);
    const post = await get('/metrics', 'POST');
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('fails clearly when the port is taken', async () => {
    await expect(
      startMetricsServer({
        host: '127.0.0.1',
        port: server.port,
        registry: new Registry(),
        readiness: () => ready,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
