import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@kdp/base';
import {
  ApiError,
  badRequest,
  forbidden,
  internalError,
  methodNotAllowed,
  notFound,
  successStatus,
  unauthorized,
  unsupportedMediaType,
} from './api-errors';
import {
  createObjectStore,
  type KubeObject,
  type ObjectStore,
  resourceTypes,
  type ResourceType,
} from './object-store';

/** What an authorizer decides on: the request's verb and target, and the bearer token it carried. */
export interface ApiRequestAttributes {
  readonly verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly token?: string;
}

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
}

/** A running API server. */
export interface ApiServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The storage behind it, for tests: the same semantics as HTTP, without auth. */
  readonly store: ObjectStore;
  /** Every request served, in order (`METHOD path?query`), for tests. */
  readonly requests: readonly string[];
  /** Ends every watch and stops listening. */
  close(): Promise<void>;
}

const resourceGroup = 'resource.k8s.io';
const resourceVersion = 'v1';

const verbsOf = (type: ResourceType): string[] =>
  type.plural === 'nodes'
    ? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
    : ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resourceList(groupVersion: string, group: string): unknown {
  const resources: unknown[] = [];
  for (const type of Object.values(resourceTypes)) {
    if (type.group !== group) continue;
    resources.push({
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: verbsOf(type),
    });
    if (type.statusSubresource) {
      resources.push({
        name: `${type.plural}/status`,
        singularName: '',
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

const groupVersion = { groupVersion: `${resourceGroup}/${resourceVersion}`, version: resourceVersion };
const apiGroup = { name: resourceGroup, versions: [groupVersion], preferredVersion: groupVersion };

/** The parsed target of a resource request. */
interface Target {
  readonly type: ResourceType;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

function parseTarget(segments: string[]): Target | undefined {
  let rest = segments;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  const type = plural === undefined ? undefined : resourceTypes[plural];
  if (type === undefined || extra.length > 0) return undefined;
  if (namespace !== undefined && !type.namespaced) return undefined;
  // A namespaced resource without a namespace can only be listed or watched (across namespaces).
  if (type.namespaced && namespace === undefined && name !== undefined) return undefined;
  if (subresource !== undefined && !(subresource === 'status' && type.statusSubresource)) return undefined;
  return {
    type,
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name: decodeURIComponent(name) }),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 3 * 1024 * 1024)
      throw new ApiError({
        ...badRequest('request entity too large').status,
        code: 413,
        reason: 'RequestEntityTooLarge',
      });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(
      `the body of the request could not be decoded: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

const asObject = (body: unknown): KubeObject => {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the request body must be a JSON object');
  const object = body as KubeObject;
  return {
    ...object,
    metadata: typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {},
  };
};

/**
 * Starts a small kube-apiserver on 127.0.0.1 (plain HTTP, no TLS) serving discovery, `resource.k8s.io/v1`
 * ResourceSlices, ResourceClaims (with `status`) and DeviceClasses, and core v1 Nodes, with resourceVersion,
 * 404/409/422 `Status` bodies, field and label selectors, watch streams and deletecollection.
 */
export async function createApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const store = createObjectStore(options.clock === undefined ? {} : { clock: options.clock });
  for (const name of options.nodes ?? []) store.create('nodes', { metadata: { name } });
  const requests: string[] = [];
  const watches = new Set<ServerResponse>();

  const send = (response: ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    response.writeHead(code, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    });
    response.end(text);
  };

  const serveWatch = (response: ServerResponse, target: Target, query: URLSearchParams): void => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    const write = (event: unknown): void => {
      if (!response.writableEnded) response.write(`${JSON.stringify(event)}\n`);
    };
    const fieldSelector = [
      query.get('fieldSelector'),
      target.name === undefined ? null : `metadata.name=${target.name}`,
    ]
      .filter((s): s is string => s !== null && s !== '')
      .join(',');
    const stop = store.watch(
      target.type.plural,
      {
        ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
        fieldSelector,
        labelSelector: query.get('labelSelector'),
        ...(query.get('resourceVersion') === null
          ? {}
          : { resourceVersion: query.get('resourceVersion') ?? '' }),
      },
      write,
    );
    watches.add(response);
    const timeout = Number(query.get('timeoutSeconds') ?? '0');
    const timer = timeout > 0 ? setTimeout(() => response.end(), timeout * 1000) : undefined;
    timer?.unref();
    response.on('close', () => {
      stop();
      if (timer !== undefined) clearTimeout(timer);
      watches.delete(response);
    });
  };

  const handleResource = async (
    request: IncomingMessage,
    response: ServerResponse,
    target: Target,
    query: URLSearchParams,
    token: string | undefined,
  ): Promise<void> => {
    const { type, namespace, name, subresource } = target;
    const method = request.method ?? 'GET';
    const isWatch = query.get('watch') === 'true' || query.get('watch') === '1';
    const verb: ApiRequestAttributes['verb'] | undefined =
      method === 'GET'
        ? isWatch
          ? 'watch'
          : name === undefined
            ? 'list'
            : 'get'
        : method === 'POST' && name === undefined
          ? 'create'
          : method === 'PUT' && name !== undefined
            ? 'update'
            : method === 'PATCH' && name !== undefined
              ? 'patch'
              : method === 'DELETE'
                ? name === undefined
                  ? 'deletecollection'
                  : 'delete'
                : undefined;
    if (verb === undefined) throw methodNotAllowed(method);
    if (verb === 'deletecollection' && type.plural === 'nodes') throw methodNotAllowed(method);
    if (
      options.authorize !== undefined &&
      !options.authorize({
        verb,
        resource: type.plural,
        ...(subresource === undefined ? {} : { subresource }),
        ...(namespace === undefined ? {} : { namespace }),
        ...(name === undefined ? {} : { name }),
        ...(token === undefined ? {} : { token }),
      })
    ) {
      throw forbidden(verb, type.plural, type.group, name, namespace);
    }
    const scope = namespace === undefined ? {} : { namespace };
    const listOptions = {
      ...scope,
      fieldSelector: query.get('fieldSelector'),
      labelSelector: query.get('labelSelector'),
    };
    const listKind = (items: KubeObject[], rv: string): unknown => ({
      kind: `${type.kind}List`,
      apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
      metadata: { resourceVersion: rv },
      items,
    });
    switch (verb) {
      case 'watch':
        serveWatch(response, target, query);
        return;
      case 'list': {
        const { items, resourceVersion: rv } = store.list(type.plural, listOptions);
        send(response, 200, listKind(items, rv));
        return;
      }
      case 'get':
        send(response, 200, store.get(type.plural, name ?? '', namespace));
        return;
      case 'create': {
        const object = asObject(await readBody(request));
        send(response, 201, store.create(type.plural, object, namespace));
        return;
      }
      case 'update': {
        const object = asObject(await readBody(request));
        if (object.metadata.name !== undefined && object.metadata.name !== name) {
          throw badRequest(
            `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
          );
        }
        const updated = store.update(
          type.plural,
          { ...object, metadata: { ...object.metadata, name } },
          {
            ...scope,
            ...(subresource === 'status' ? { subresource: 'status' as const } : {}),
          },
        );
        send(response, 200, updated);
        return;
      }
      case 'patch': {
        const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
        if (
          contentType !== 'application/merge-patch+json' &&
          contentType !== 'application/strategic-merge-patch+json'
        ) {
          throw unsupportedMediaType(contentType);
        }
        const patch = await readBody(request);
        send(
          response,
          200,
          store.patch(type.plural, name ?? '', patch, {
            ...scope,
            ...(subresource === 'status' ? { subresource: 'status' as const } : {}),
          }),
        );
        return;
      }
      case 'delete': {
        const body = (await readBody(request)) as
          { preconditions?: { uid?: string; resourceVersion?: string } } | undefined;
        const deleted = store.delete(type.plural, name ?? '', {
          ...scope,
          ...(body?.preconditions === undefined ? {} : { preconditions: body.preconditions }),
        });
        send(response, 200, successStatus(type.plural, type.group, name ?? '', deleted.metadata.uid ?? ''));
        return;
      }
      case 'deletecollection': {
        const deleted = store.deleteCollection(type.plural, listOptions);
        send(response, 200, listKind(deleted, String(store.resourceVersion())));
        return;
      }
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method ?? 'GET'} ${url.pathname}${url.search}`);
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    if (options.token !== undefined && token !== options.token) throw unauthorized();
    const path = url.pathname.replace(/\/+$/, '');
    const segments = path.split('/').filter((s) => s !== '');
    if (request.method === 'GET') {
      if (path === '/version') {
        send(response, 200, {
          major: '1',
          minor: '35',
          gitVersion: 'v1.35.0-kubelet-sim',
          platform: `${process.platform}/${process.arch}`,
        });
        return;
      }
      if (path === '/api') {
        send(response, 200, {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: url.host }],
        });
        return;
      }
      if (path === '/apis') {
        send(response, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup] });
        return;
      }
      if (path === `/apis/${resourceGroup}`) {
        send(response, 200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup });
        return;
      }
      if (path === '/api/v1') {
        send(response, 200, resourceList('v1', ''));
        return;
      }
      if (path === `/apis/${resourceGroup}/${resourceVersion}`) {
        send(response, 200, resourceList(`${resourceGroup}/${resourceVersion}`, resourceGroup));
        return;
      }
    }
    let target: Target | undefined;
    if (segments[0] === 'api' && segments[1] === 'v1') target = parseTarget(segments.slice(2));
    else if (segments[0] === 'apis' && segments[1] === resourceGroup && segments[2] === resourceVersion)
      target = parseTarget(segments.slice(3));
    if (target === undefined || target.type.group !== (segments[0] === 'api' ? '' : resourceGroup)) {
      throw notFound('', '', path);
    }
    await handleResource(request, response, target, url.searchParams, token);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((err: unknown) => {
      const apiError =
        err instanceof ApiError ? err : internalError(err instanceof Error ? err.message : String(err));
      if (response.headersSent) response.end();
      else send(response, apiError.code, apiError.status);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    requests,
    close: async () => {
      for (const response of watches) response.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
