import { createServer } from 'node:net';
import { startProbeServer, type MetricsSource, type ProbeServer } from './probe-server';

let server: ProbeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const source = (text: string): MetricsSource => ({
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  metrics: async () => text,
});

async function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string | null; allow: string | null }> {
  const res = await fetch(`${server?.url}${path}`, { method });
  return {
    status: res.status,
    body: await res.text(),
    type: res.headers.get('content-type'),
    allow: res.headers.get('allow'),
  };
}

describe('startProbeServer', () => {
  it('binds port 0 and reports the real address', async () => {
    server = await startProbeServer({ address: '127.0.0.1:0' });
    expect(server.address.host).toBe('127.0.0.1');
    expect(server.address.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.address.port}`);
  });

  it('serves /metrics from its source with the source content type; HEAD has no body', async () => {
    server = await startProbeServer({ address: '127.0.0.1:0', metrics: source('kdp_example 3\n') });
    expect(await get('/metrics')).toMatchObject({
      status: 200,
      type: 'text/plain; version=0.0.4; charset=utf-8',
      body: 'kdp_example 3\n',
    });
    expect(await get('/metrics?x=1', 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('answers 500 naming the cause when collecting metrics fails', async () => {
    const failing: MetricsSource = {
      contentType: 'text/plain',
      metrics: () => Promise.reject(new Error('boom')),
    };
    server = await startProbeServer({ address: '127.0.0.1:0', metrics: failing });
    expect(await get('/metrics')).toMatchObject({
      status: 500,
      body: 'cannot collect metrics: Error: boom\n',
    });
  });

  it('answers /healthz 200 and /readyz from the readiness probe, which can be replaced', async () => {
    let ready = false;
    server = await startProbeServer({
      address: '127.0.0.1:0',
      readiness: () => (ready ? { ok: true, message: 'ready' } : { ok: false, message: 'not registered: a' }),
    });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get('/readyz')).toMatchObject({ status: 503, body: 'not registered: a\n' });
    ready = true;
    expect(await get('/readyz?verbose')).toMatchObject({ status: 200, body: 'ready\n' });
    server.setReadiness(() => {
      throw new Error('no kubelet');
    });
    expect(await get('/readyz')).toMatchObject({ status: 503, body: 'probe failed: no kubelet\n' });
  });

  it('uses the liveness probe it is given', async () => {
    server = await startProbeServer({
      address: '127.0.0.1:0',
      liveness: async () => ({ ok: false, message: 'event loop stuck' }),
    });
    expect(await get('/healthz')).toMatchObject({ status: 503, body: 'event loop stuck\n' });
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
  });

  it('answers 404 for other paths (and /metrics without a source) and 405 for other methods', async () => {
    server = await startProbeServer({ address: '127.0.0.1:0' });
    expect(await get('/metrics')).toMatchObject({
      status: 404,
      body: 'not found: try /healthz or /readyz\n',
    });
    await server.close();
    server = await startProbeServer({ address: '127.0.0.1:0', metrics: source('') });
    expect((await get('/')).status).toBe(404);
    expect((await get('/metrics/x')).status).toBe(404);
    expect(await get('/metrics', 'POST')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
  });

  it('rejects a malformed address and one in use', async () => {
    await expect(startProbeServer({ address: 'nope' })).rejects.toThrow('"nope" is not HOST:PORT');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startProbeServer({ address: `127.0.0.1:${port}` })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      );
    } finally {
      blocker.close();
    }
  });
});
