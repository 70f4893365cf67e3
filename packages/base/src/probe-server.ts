import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseHostPort } from './parse-host-port';

/** A probe's answer: `ok`, and a short plain-text message for the HTTP body. */
export interface ProbeResult {
  readonly ok: boolean;
  readonly message?: string;
}

/** What /metrics serves: a prom-client `Registry` has this shape. */
export interface MetricsSource {
  /** The exposition's content type. */
  readonly contentType: string;
  /** The metrics as text in that format. */
  metrics(): Promise<string>;
}

/** A probe callback: answers for /healthz or /readyz (may be async; a throw counts as not ok). */
export type ProbeProvider = () => ProbeResult | Promise<ProbeResult>;

/** Options for {@link startProbeServer}. */
export interface ProbeServerOptions {
  /** `HOST:PORT` as given to `--metrics-address`; port 0 picks a free port. */
  readonly address: string;
  /** What /metrics serves (a prom-client `Registry`); absent: /metrics answers 404. */
  readonly metrics?: MetricsSource;
  /** /readyz: 200 when ok, 503 with the message otherwise (default: always ready). */
  readonly readiness?: ProbeProvider;
  /** /healthz: 200 when ok, 503 otherwise (default: ok while the process answers). */
  readonly liveness?: ProbeProvider;
}

/** A running probe server. */
export interface ProbeServer {
  /** The bound address (the real port when 0 was asked for). */
  readonly address: { readonly host: string; readonly port: number };
  /** `http://host:port`. */
  readonly url: string;
  /** Replaces the readiness provider (e.g. once the lifecycle is up). */
  setReadiness(provider: ProbeProvider): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Serves `/metrics` (Prometheus text), `/healthz` and `/readyz` on `address`. Resolves once listening;
 * rejects when the address is malformed or cannot be bound (e.g. in use).
 */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const { host, port } = parseHostPort(options.address);
  let readiness: ProbeProvider = options.readiness ?? (() => ({ ok: true, message: 'ready' }));
  const liveness: ProbeProvider = options.liveness ?? (() => ({ ok: true, message: 'ok' }));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const metrics = options.metrics;
    if ((path !== '/metrics' || metrics === undefined) && path !== '/healthz' && path !== '/readyz')
      return send(res, 404, `not found: try ${metrics ? '/metrics, ' : ''}/healthz or /readyz\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, 'method not allowed\n');
    }
    if (path === '/metrics' && metrics !== undefined) {
      try {
        const body = await metrics.metrics();
        return send(res, 200, body, metrics.contentType, req.method === 'HEAD');
      } catch (error) {
        return send(res, 500, `cannot collect metrics: ${String(error)}\n`);
      }
    }
    const result = await probe(path === '/healthz' ? liveness : readiness);
    return send(
      res,
      result.ok ? 200 : 503,
      `${result.message ?? (result.ok ? 'ok' : 'not ok')}\n`,
      undefined,
      req.method === 'HEAD',
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, 'internal error\n'));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) =>
      reject(new Error(`cannot listen on ${options.address}: ${error.message}`));
    server.once('error', onError);
    server.listen({ port, ...(host ? { host } : {}) }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const shownHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    address: { host: bound.address, port: bound.port },
    url: `http://${shownHost}:${bound.port}`,
    setReadiness(provider) {
      readiness = provider;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function probe(provider: ProbeProvider): Promise<ProbeResult> {
  try {
    return await provider();
  } catch (error) {
    return { ok: false, message: `probe failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headOnly = false,
): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(headOnly ? undefined : body);
}
