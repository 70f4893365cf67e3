import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Clock } from '@kdp/base';
import { ApiError, internalError, notFound, unauthorized } from './api-errors';
import { discoveryDocument } from './discovery';
import { sendJson } from './http-json';
import { createObjectStore, type ObjectStore } from './object-store';
import type { ApiRequestAttributes } from './request-verb';
import { createResourceHandler } from './resource-handler';
import { resolveResourceTarget } from './resource-target';
import { resourceApiVersions, type ResourceApiVersion } from './resource-version-conversion';
import { openApiDocument } from './openapi';
import { createSelfSignedCert } from './self-signed-cert';
import { createWatchHandler } from './watch-handler';

export type { ApiRequestAttributes } from './request-verb';
export type { ResourceApiVersion } from './resource-version-conversion';

/** Options of {@link createApiServer}. */
export interface ApiServerOptions {
  /** Port on 127.0.0.1; default 0 (any free port). */
  readonly port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  readonly token?: string;
  /** When set, a request it refuses gets 403 Forbidden. */
  readonly authorize?: (attributes: ApiRequestAttributes) => boolean;
  /** Stamps `creationTimestamp`. */
  readonly clock?: Clock;
  /** Nodes created at start (names). */
  readonly nodes?: readonly string[];
  /**
   * Serve HTTPS with a self-signed certificate generated at start for `127.0.0.1` and `localhost` (its PEM is
   * {@link ApiServer.caData}); default plain HTTP.
   */
  readonly tls?: boolean;
  /**
   * The resource.k8s.io versions served (default `['v1']`); storage stays v1 and objects are converted at the
   * HTTP boundary. A version not listed is absent from discovery and its paths are 404.
   */
  readonly resourceApiVersions?: readonly ResourceApiVersion[];
  /**
   * Compiles a CEL expression and returns the compiler's message when it does not compile. When set, a
   * DeviceClass or claim (template) selector whose expression fails is a 422 Invalid at its field.
   */
  readonly validateCel?: (expression: string) => string | undefined;
  /** Serve this storage (an API server restarted over the same objects); default a new one, with `nodes`. */
  readonly store?: ObjectStore;
  /** With `tls`: serve this certificate (a restart keeps it); default a new self-signed one. */
  readonly cert?: { readonly certPem: string; readonly keyPem: string };
  /** Fault injection: a request it returns an error for is refused with that error before anything else. */
  readonly refuse?: (request: { readonly method: string; readonly path: string }) => ApiError | undefined;
}

/** A running API server. */
export interface ApiServer {
  /** `http://127.0.0.1:<port>`, or `https://…` with `tls`. */
  readonly url: string;
  /** With `tls`: the PEM of the serving certificate, which is its own CA (kubeconfig `certificate-authority-data`). */
  readonly caData?: string;
  /** With `tls`: the serving certificate and its key (to restart with the same). */
  readonly cert?: { readonly certPem: string; readonly keyPem: string };
  /** The storage behind it, for tests: the same semantics as HTTP, without auth. */
  readonly store: ObjectStore;
  /** Every request served, in order (`METHOD path?query`), for tests. */
  readonly requests: readonly string[];
  /** Ends every watch and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a small kube-apiserver on 127.0.0.1 (plain HTTP, or HTTPS with `tls`) serving discovery, `resource.k8s.io/v1`
 * ResourceSlices, ResourceClaims (with `status`) and DeviceClasses, and core v1 Nodes, with resourceVersion,
 * 404/409/422 `Status` bodies, field and label selectors, watch streams and deletecollection.
 */
export async function createApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const store =
    options.store ??
    createObjectStore({
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.validateCel === undefined ? {} : { validateCel: options.validateCel }),
    });
  const served = resourceApiVersions.filter((v) => (options.resourceApiVersions ?? ['v1']).includes(v));
  if (served.length === 0) throw new Error('resourceApiVersions: at least one of v1, v1beta2, v1beta1');
  if (options.store === undefined)
    for (const name of options.nodes ?? []) store.create('nodes', { metadata: { name } });
  const requests: string[] = [];
  const watches = createWatchHandler({ store });
  const handleResource = createResourceHandler({
    store,
    watches,
    authorize: options.authorize,
    clock: options.clock,
  });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method ?? 'GET'} ${url.pathname}${url.search}`);
    const refused = options.refuse?.({ method: request.method ?? 'GET', path: url.pathname });
    if (refused !== undefined) throw refused;
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    if (options.token !== undefined && token !== options.token) throw unauthorized();
    const path = url.pathname.replace(/\/+$/, '');
    const discovery =
      request.method === 'GET'
        ? (discoveryDocument(path, url.host, served) ?? openApiDocument(path, { resourceVersions: served }))
        : undefined;
    if (discovery !== undefined) {
      sendJson(response, 200, discovery);
      return;
    }
    const target = resolveResourceTarget(
      path.split('/').filter((s) => s !== ''),
      served,
    );
    if (target === undefined) throw notFound('', '', path);
    await handleResource({ request, response, target, query: url.searchParams, token });
  };

  const listener: RequestListener = (request, response) => {
    handle(request, response).catch((err: unknown) => {
      const apiError =
        err instanceof ApiError ? err : internalError(err instanceof Error ? err.message : String(err));
      if (response.headersSent) response.end();
      else sendJson(response, apiError.code, apiError.status);
    });
  };
  const cert =
    options.tls === true
      ? (options.cert ?? createSelfSignedCert(options.clock === undefined ? {} : { clock: options.clock }))
      : undefined;
  const server: Server =
    cert === undefined
      ? createServer(listener)
      : createHttpsServer({ key: cert.keyPem, cert: cert.certPem }, listener);
  // Every accepted socket, TLS handshake done or not: `closeAllConnections` knows only those that completed it, and
  // one still in its handshake at close would finish it later, carry a watch, and hold `close` open for good.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${cert === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    ...(cert === undefined
      ? {}
      : { caData: cert.certPem, cert: { certPem: cert.certPem, keyPem: cert.keyPem } }),
    store,
    requests,
    close: async () => {
      watches.endAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
