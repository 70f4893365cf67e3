import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  registry: Registry;
  /** Backs /readyz: 200 "ok" when ready, else 503 with the reason. */
  readiness: () => { ready: boolean; reason: string };
}

/** A listening metrics server. */
export interface MetricsServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves GET /metrics (Prometheus text), /healthz (200 while the process runs) and /readyz. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const reply = (code: number, body: string, contentType = 'text/plain; charset=utf-8') => {
      response.writeHead(code, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      reply(405, 'method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => reply(200, text, options.registry.contentType),
        (error: unknown) => reply(500, `metrics collection failed: ${String(error)}\n`),
      );
    } else if (path === '/healthz') {
      reply(200, 'ok\n');
    } else if (path === '/readyz') {
      const { ready, reason } = options.readiness();
      reply(ready ? 200 : 503, `${reason}\n`);
    } else {
      reply(404, 'not found: try /metrics, /healthz or /readyz\n');
    }
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
