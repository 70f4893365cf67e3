import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored object and the version it was last written in. */
interface Stored {
  version: string;
  object: Record<string, unknown>;
}

/** A small API server that serves `resource.k8s.io` in the versions a test picks (ResourceSlices and claims). */
export interface FakeResourceApi {
  readonly url: string;
  /** The versions served, most preferred first; change it to play an upgrade or a downgrade. */
  versions: string[];
  /** `METHOD path` of every request, query string dropped. */
  readonly requests: string[];
  /** The stored slices by name, in the version each was written in. */
  readonly slices: Map<string, Stored>;
  /** Stores a claim as written in `version` (`namespace/name` from its metadata). */
  putClaim(version: string, claim: Record<string, unknown>): void;
  close(): Promise<void>;
}

const notFound = { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 };

/**
 * Starts the fake: discovery of `/apis/resource.k8s.io`, the Node, and ResourceSlices (list, a watch that stays
 * quiet, create, update, delete) plus ResourceClaims (get) under the served versions only; any other version is
 * 404 as on a real API server. A slice written with a device in the other version's shape is refused (400, as
 * strict decoding does), and slices are read back in the version asked for (v1beta1's `basic` wrapped or
 * unwrapped).
 */
export async function createFakeResourceApi(versions: string[]): Promise<FakeResourceApi> {
  const slices = new Map<string, Stored>();
  const claims = new Map<string, Stored>();
  const requests: string[] = [];
  const watches = new Set<ServerResponse>();
  let resourceVersion = 1;
  let named = 0;
  const fake = { versions };

  const send = (res: ServerResponse, code: number, body: unknown): void => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    requests.push(`${method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body =
      chunks.length === 0
        ? undefined
        : (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
    if (url.pathname === '/apis/resource.k8s.io') {
      if (fake.versions.length === 0)
        return send(res, 404, { ...notFound, message: 'the server could not find the requested resource' });
      return send(res, 200, {
        kind: 'APIGroup',
        apiVersion: 'v1',
        name: 'resource.k8s.io',
        versions: fake.versions.map((version) => ({ groupVersion: `resource.k8s.io/${version}`, version })),
        preferredVersion: { groupVersion: `resource.k8s.io/${fake.versions[0]}`, version: fake.versions[0] },
      });
    }
    const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(url.pathname);
    if (node) return send(res, 200, { kind: 'Node', metadata: { name: node[1], uid: `uid-${node[1]}` } });
    const match = /^\/apis\/resource\.k8s\.io\/([^/]+)\/(.*)$/.exec(url.pathname);
    const version = match?.[1] ?? '';
    if (match === null || !fake.versions.includes(version))
      return send(res, 404, { ...notFound, message: 'the server could not find the requested resource' });
    const rest = match[2] ?? '';
    const claim = /^namespaces\/([^/]+)\/resourceclaims\/([^/]+)$/.exec(rest);
    if (claim && method === 'GET') {
      const stored = claims.get(`${claim[1]}/${claim[2]}`);
      if (stored === undefined)
        return send(res, 404, { ...notFound, message: `resourceclaims "${claim[2]}" not found` });
      return send(res, 200, { ...stored.object, apiVersion: `resource.k8s.io/${version}` });
    }
    const slice = /^resourceslices(?:\/([^/]+))?$/.exec(rest);
    if (slice === null) return send(res, 404, { ...notFound, message: 'no such path' });
    const name = slice[1];
    const read = (s: Stored): unknown => inVersion(s, version);
    if (name === undefined && method === 'GET' && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      watches.add(res);
      res.on('close', () => watches.delete(res));
      return;
    }
    if (name === undefined && method === 'GET')
      return send(res, 200, {
        kind: 'ResourceSliceList',
        metadata: { resourceVersion: String(resourceVersion) },
        items: [...slices.values()].map(read),
      });
    if (body !== undefined && (method === 'POST' || method === 'PUT')) {
      const problem = shapeProblem(body, version);
      if (problem !== undefined)
        return send(res, 400, { kind: 'Status', code: 400, reason: 'BadRequest', message: problem });
      const metadata = { ...(body['metadata'] as Record<string, unknown>) };
      if (method === 'POST') metadata['name'] = `${String(metadata['generateName'])}${(named += 1)}`;
      else if (name === undefined || !slices.has(name))
        return send(res, 404, { ...notFound, message: 'not found' });
      metadata['resourceVersion'] = String((resourceVersion += 1));
      const stored = { version, object: { ...body, metadata } };
      slices.set(String(metadata['name']), stored);
      return send(res, method === 'POST' ? 201 : 200, read(stored));
    }
    if (name !== undefined && method === 'DELETE') {
      const stored = slices.get(name);
      if (stored === undefined) return send(res, 404, { ...notFound, message: 'not found' });
      slices.delete(name);
      return send(res, 200, read(stored));
    }
    return send(res, 405, { kind: 'Status', code: 405, message: `${method} not allowed` });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, { kind: 'Status', code: 500, message: String(error) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get versions() {
      return fake.versions;
    },
    set versions(value) {
      fake.versions = value;
    },
    requests,
    slices,
    putClaim(version, object) {
      const metadata = object['metadata'] as { namespace: string; name: string };
      claims.set(`${metadata.namespace}/${metadata.name}`, { version, object });
    },
    async close() {
      for (const watch of watches) watch.end();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Why a slice body is not in `version`'s device shape (strict decoding), or undefined. */
function shapeProblem(body: Record<string, unknown>, version: string): string | undefined {
  const devices = (body['spec'] as { devices?: Record<string, unknown>[] } | undefined)?.devices ?? [];
  for (const device of devices) {
    const unknown = Object.keys(device).filter((key) =>
      version === 'v1beta1' ? key !== 'name' && key !== 'basic' : key === 'basic',
    );
    if (unknown.length > 0) return `strict decoding error: unknown field "spec.devices[0].${unknown[0]}"`;
  }
  if (body['apiVersion'] !== `resource.k8s.io/${version}`)
    return `apiVersion ${String(body['apiVersion'])} in a ${version} request`;
  return undefined;
}

/** A stored slice as read in `version`: devices moved into or out of v1beta1's `basic`. */
function inVersion(stored: Stored, version: string): unknown {
  const spec = stored.object['spec'] as { devices?: Record<string, unknown>[] };
  const devices = (spec.devices ?? []).map((device) => {
    if (stored.version === 'v1beta1' && version !== 'v1beta1') {
      const { basic, ...rest } = device;
      return { ...rest, ...(basic as Record<string, unknown>) };
    }
    if (stored.version !== 'v1beta1' && version === 'v1beta1') {
      const { name, ...rest } = device;
      return { name, basic: rest };
    }
    return device;
  });
  return { ...stored.object, apiVersion: `resource.k8s.io/${version}`, spec: { ...spec, devices } };
}
