import { once } from 'node:events';
import { connect } from 'node:net';
import { createApiCall } from './api-call.fixture';
import { createApiServer, type ApiServer } from './api-server';

const slicesPath = '/apis/resource.k8s.io/v1/resourceslices';
const claimsPath = (ns: string): string => `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;

const slice = (
  name: string,
  node: string,
  driver = 'gpu.example.com',
  devices: object[] = [{ name: 'gpu-0' }],
): Record<string, unknown> => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name },
  spec: { driver, nodeName: node, pool: { name: node, generation: 1, resourceSliceCount: 1 }, devices },
});

interface WatchLine {
  type: string;
  object: { metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> } };
}

/** Opens a watch: `next()` reads its next event. */
async function openWatch(
  url: string,
): Promise<{ next: () => Promise<WatchLine>; controller: AbortController }> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  if (response.body === null) throw new Error('watch: no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const next = async (): Promise<WatchLine> => {
    for (;;) {
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return JSON.parse(line) as WatchLine;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('watch ended');
      buffered += decoder.decode(value, { stream: true });
    }
  };
  return { next, controller };
}

describe('kubelet-sim API server', () => {
  let server: ApiServer;
  const call = createApiCall(() => server.url);

  beforeEach(async () => {
    server = await createApiServer({ nodes: ['node-a'] });
  });
  afterEach(async () => {
    await server.close();
  });

  it('serves discovery for resource.k8s.io/v1, admissionregistration.k8s.io/v1 and core v1', async () => {
    expect((await call('GET', '/apis')).body).toMatchObject({
      kind: 'APIGroupList',
      groups: [
        { name: 'resource.k8s.io', preferredVersion: { groupVersion: 'resource.k8s.io/v1' } },
        {
          name: 'admissionregistration.k8s.io',
          preferredVersion: { groupVersion: 'admissionregistration.k8s.io/v1' },
        },
      ],
    });
    const admission = (await call('GET', '/apis/admissionregistration.k8s.io/v1')).body;
    expect((admission['resources'] as Array<{ name: string }>).map((r) => r.name)).toEqual([
      'validatingadmissionpolicies',
      'validatingadmissionpolicybindings',
    ]);
    expect((await call('GET', '/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const list = (await call('GET', '/apis/resource.k8s.io/v1')).body;
    const names = (list['resources'] as Array<{ name: string }>).map((r) => r.name);
    expect(names).toEqual([
      'resourceslices',
      'resourceclaims',
      'resourceclaims/status',
      'deviceclasses',
      'resourceclaimtemplates',
    ]);
    const core = (await call('GET', '/api/v1')).body;
    expect((core['resources'] as Array<{ name: string }>).map((r) => r.name)).toEqual([
      'pods',
      'pods/status',
      'events',
      'nodes',
    ]);
    expect((await call('GET', '/apis/resource.k8s.io')).body).toMatchObject({
      kind: 'APIGroup',
      name: 'resource.k8s.io',
    });
  });

  it('creates with uid, resourceVersion, creationTimestamp and generateName; 409 AlreadyExists; 404 NotFound', async () => {
    const created = await call('POST', slicesPath, slice('s1', 'node-a'));
    expect(created.status).toBe(201);
    const meta = created.body['metadata'] as Record<string, string>;
    expect(meta['uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(meta['resourceVersion'])).toBeGreaterThan(0);
    expect(meta['creationTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await call('POST', slicesPath, slice('s1', 'node-a'));
    expect(again).toMatchObject({
      status: 409,
      body: {
        kind: 'Status',
        reason: 'AlreadyExists',
        message: 'resourceslices.resource.k8s.io "s1" already exists',
        code: 409,
      },
    });
    const generated = await call('POST', slicesPath, {
      ...slice('', 'node-a'),
      metadata: { generateName: 'node-a-gpu-' },
    });
    expect((generated.body['metadata'] as Record<string, string>)['name']).toMatch(
      /^node-a-gpu-[a-z0-9]{5}$/,
    );
    expect(await call('GET', `${slicesPath}/nope`)).toMatchObject({
      status: 404,
      body: {
        reason: 'NotFound',
        message: 'resourceslices.resource.k8s.io "nope" not found',
        details: { name: 'nope', kind: 'resourceslices' },
      },
    });
  });

  it('answers 409 Conflict to an update with a stale resourceVersion and bumps it on success', async () => {
    const created = (await call('POST', slicesPath, slice('s1', 'node-a'))).body as {
      metadata: { resourceVersion: string };
    };
    const next = {
      ...created,
      spec: {
        ...(created as unknown as { spec: object }).spec,
        pool: { name: 'node-a', generation: 2, resourceSliceCount: 1 },
      },
    };
    const updated = await call('PUT', `${slicesPath}/s1`, next);
    expect(updated.status).toBe(200);
    expect(Number((updated.body['metadata'] as Record<string, string>)['resourceVersion'])).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    const stale = await call('PUT', `${slicesPath}/s1`, next);
    expect(stale).toMatchObject({
      status: 409,
      body: {
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on resourceslices.resource.k8s.io "s1": the object has been modified; please apply your changes to the latest version and try again',
      },
    });
  });

  it('takes counter sets in slices of their own (Kubernetes 1.35) and refuses past the counter limits', async () => {
    const counters = (n: number): Record<string, { value: string }> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, { value: '1' }]));
    const { devices: _none, ...spec } = slice('sets', 'node-a')['spec'] as Record<string, unknown>;
    const sets = (list: unknown[]): Record<string, unknown> => ({
      ...slice('sets', 'node-a'),
      spec: { ...spec, pool: { name: 'node-a', generation: 1, resourceSliceCount: 2 }, sharedCounters: list },
    });
    const ok = await call('POST', slicesPath, sets([{ name: 'gpu-0', counters: counters(32) }]));
    expect(ok.status).toBe(201);
    const uses = (n: number, each = 1): unknown[] =>
      Array.from({ length: n }, (_, i) => ({ counterSet: `gpu-${i}`, counters: counters(each) }));
    const devices = await call('POST', slicesPath, {
      ...slice('devices', 'node-a', 'gpu.example.com', [{ name: 'xcp-0', consumesCounters: uses(2, 32) }]),
    });
    expect(devices.status).toBe(201);
    const tooMany = await call(
      'POST',
      slicesPath,
      sets(Array.from({ length: 9 }, (_, i) => ({ name: `gpu-${i}`, counters: counters(1) }))),
    );
    expect((tooMany.body['details'] as { causes: unknown[] }).causes).toEqual([
      {
        reason: 'FieldValueTooMany',
        field: 'spec.sharedCounters',
        message: 'Too many: 9: must have at most 8 items',
      },
    ]);
    const big = await call('POST', slicesPath, sets([{ name: 'gpu-0', counters: counters(33) }]));
    expect((big.body['details'] as { causes: unknown[] }).causes).toEqual([
      expect.objectContaining({ field: 'spec.sharedCounters[0].counters', reason: 'FieldValueTooMany' }),
    ]);
    const three = await call('POST', slicesPath, {
      ...slice('three', 'node-a', 'gpu.example.com', [{ name: 'xcp-0', consumesCounters: uses(3) }]),
    });
    expect((three.body['details'] as { causes: unknown[] }).causes).toEqual([
      expect.objectContaining({ field: 'spec.devices[0].consumesCounters', reason: 'FieldValueTooMany' }),
    ]);
  });

  it('returns the v1 validation limits as 422 Invalid with one cause per field', async () => {
    const devices = Array.from({ length: 129 }, (_, i) => ({ name: `d${i}` }));
    const tooMany = await call('POST', slicesPath, slice('big', 'node-a', 'gpu.example.com', devices));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatchObject({
      reason: 'Invalid',
      details: {
        kind: 'ResourceSlice',
        causes: [
          {
            reason: 'FieldValueTooMany',
            field: 'spec.devices',
            message: 'Too many: 129: must have at most 128 items',
          },
        ],
      },
    });
    const attributes: Record<string, unknown> = {
      'Bad Name': { string: 'x' },
      longValue: { string: 'x'.repeat(65) },
    };
    for (let i = 0; i < 31; i += 1) attributes[`a${i}`] = { int: i };
    const bad = {
      metadata: { name: 'bad' },
      spec: {
        driver: 'not_a_dns_name',
        nodeName: 'node-a',
        allNodes: true,
        pool: { name: 'p', generation: -1, resourceSliceCount: 0 },
        devices: [{ name: 'GPU_0', attributes }, { name: 'dup' }, { name: 'dup' }],
      },
    };
    const reply = await call('POST', slicesPath, bad);
    expect(reply.status).toBe(422);
    const causes = (
      reply.body['details'] as { causes: Array<{ field: string; reason: string; message: string }> }
    ).causes;
    const byField = (field: string): string[] => causes.filter((c) => c.field === field).map((c) => c.reason);
    expect(byField('spec.driver')).toEqual(['FieldValueInvalid']);
    expect(byField('spec.pool.generation')).toEqual(['FieldValueInvalid']);
    expect(byField('spec.pool.resourceSliceCount')).toEqual(['FieldValueInvalid']);
    expect(causes.find((c) => c.field === 'spec')?.message).toContain(
      'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
    );
    expect(byField('spec.devices[0].name')).toEqual(['FieldValueInvalid']);
    expect(causes.find((c) => c.field === 'spec.devices[0]')?.message).toContain(
      'the total number of attributes and capacities must not exceed 32',
    );
    expect(byField('spec.devices[0].attributes[Bad Name]')).toEqual(['FieldValueInvalid']);
    expect(byField('spec.devices[0].attributes[longValue].string')).toEqual(['FieldValueTooLong']);
    expect(byField('spec.devices[2].name')).toEqual(['FieldValueDuplicate']);
    expect(String(reply.body['message'])).toMatch(/^ResourceSlice\.resource\.k8s\.io "bad" is invalid: \[/);
    const none = await call('POST', slicesPath, {
      metadata: { name: 'none' },
      spec: { driver: 'a.b', pool: { name: 'p', resourceSliceCount: 1 } },
    });
    expect(none.body).toMatchObject({
      details: { causes: [{ field: 'spec', reason: 'FieldValueRequired' }] },
    });
  });

  it('filters lists by field and label selectors and rejects unsupported fields', async () => {
    await call('POST', slicesPath, slice('a1', 'node-a', 'gpu.example.com'));
    await call('POST', slicesPath, slice('a2', 'node-a', 'usb.example.com'));
    await call('POST', slicesPath, {
      ...slice('b1', 'node-b', 'gpu.example.com'),
      metadata: { name: 'b1', labels: { tier: 'x' } },
    });
    const names = async (query: string): Promise<string[]> =>
      (
        (await call('GET', `${slicesPath}?${query}`)).body['items'] as Array<{ metadata: { name: string } }>
      ).map((i) => i.metadata.name);
    expect(await names('fieldSelector=spec.nodeName%3Dnode-a')).toEqual(['a1', 'a2']);
    expect(await names('fieldSelector=spec.nodeName%3Dnode-a,spec.driver%3Dusb.example.com')).toEqual(['a2']);
    expect(await names('fieldSelector=spec.driver!%3Dusb.example.com')).toEqual(['a1', 'b1']);
    expect(await names('fieldSelector=metadata.name%3Db1')).toEqual(['b1']);
    expect(await names('labelSelector=tier%3Dx')).toEqual(['b1']);
    expect(await names('labelSelector=!tier')).toEqual(['a1', 'a2']);
    const list = await call('GET', slicesPath);
    expect(list.body).toMatchObject({
      kind: 'ResourceSliceList',
      apiVersion: 'resource.k8s.io/v1',
      metadata: { resourceVersion: String(server.store.resourceVersion()) },
    });
    expect(await call('GET', `${slicesPath}?fieldSelector=spec.pool.nope%3Dx`)).toMatchObject({
      status: 400,
      body: { reason: 'BadRequest', message: 'field label not supported: spec.pool.nope' },
    });
  });

  it('deletes a collection by field selector, as the kubelet wipes its node', async () => {
    await call('POST', slicesPath, slice('a1', 'node-a'));
    await call('POST', slicesPath, slice('a2', 'node-a', 'usb.example.com'));
    await call('POST', slicesPath, slice('b1', 'node-b'));
    const deleted = await call('DELETE', `${slicesPath}?fieldSelector=spec.nodeName%3Dnode-a`);
    expect(deleted.status).toBe(200);
    expect(
      (deleted.body['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name),
    ).toEqual(['a1', 'a2']);
    expect(server.store.list('resourceslices').items.map((i) => i.metadata.name)).toEqual(['b1']);
    const one = await call('DELETE', `${slicesPath}/b1`);
    expect(one.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'b1' } });
    expect((await call('DELETE', `${slicesPath}/b1`)).status).toBe(404);
  });

  it('streams watch events as JSON lines from a resourceVersion, filtered by field selector', async () => {
    const start = server.store.resourceVersion();
    server.store.create('resourceslices', slice('a1', 'node-a') as never);
    const { next, controller } = await openWatch(
      `${server.url}${slicesPath}?watch=true&resourceVersion=${start}&fieldSelector=spec.nodeName%3Dnode-a`,
    );
    expect(await next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a1' } } });
    server.store.create('resourceslices', slice('b1', 'node-b') as never); // filtered out
    const current = server.store.get('resourceslices', 'a1');
    server.store.update('resourceslices', {
      ...current,
      metadata: { ...current.metadata, labels: { x: 'y' } },
    });
    expect(await next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'a1' } } });
    server.store.delete('resourceslices', 'a1');
    const deleted = await next();
    expect(deleted).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a1' } } });
    expect(deleted.object.metadata.resourceVersion).toBe(String(server.store.resourceVersion()));
    controller.abort();
  });

  it('sends the initial events, then the initial-events-end BOOKMARK, then changes (sendInitialEvents)', async () => {
    server.store.create('resourceslices', slice('a1', 'node-a') as never);
    const rv = server.store.resourceVersion();
    const { next, controller } = await openWatch(
      `${server.url}${slicesPath}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=`,
    );
    expect(await next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a1' } } });
    expect(await next()).toEqual({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceSlice',
        metadata: { resourceVersion: String(rv), annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
    server.store.create('resourceslices', slice('b1', 'node-b') as never);
    expect(await next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b1' } } });
    controller.abort();

    // sendInitialEvents=false: only what changes from now on.
    const later = await openWatch(
      `${server.url}${slicesPath}?watch=true&sendInitialEvents=false&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
    );
    server.store.delete('resourceslices', 'b1');
    expect(await later.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'b1' } } });
    later.controller.abort();

    const refused = await call('GET', `${slicesPath}?watch=true&sendInitialEvents=true`);
    expect(refused.status).toBe(422);
    expect(refused.body['message']).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true, resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan]',
    );
  });

  it('writes nothing on dryRun=All but answers as if written; any other dryRun is a 422', async () => {
    const rv = server.store.resourceVersion();
    const created = await call('POST', `${slicesPath}?dryRun=All`, slice('d1', 'node-a'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ metadata: { name: 'd1' } });
    expect((created.body['metadata'] as Record<string, unknown>)['uid']).toEqual(expect.any(String));
    expect((created.body['metadata'] as Record<string, unknown>)['resourceVersion']).toBeUndefined();
    expect((await call('GET', `${slicesPath}/d1`)).status).toBe(404);
    expect((await call('POST', `${slicesPath}?dryRun=All`, { metadata: { name: 'bad' } })).status).toBe(422);

    server.store.create('resourceslices', slice('d1', 'node-a') as never);
    const stored = server.store.get('resourceslices', 'd1');
    const patched = await call(
      'PATCH',
      `${slicesPath}/d1?dryRun=All`,
      { metadata: { labels: { x: 'y' } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      metadata: { labels: { x: 'y' }, resourceVersion: stored.metadata.resourceVersion },
    });
    const put = await call('PUT', `${slicesPath}/d1?dryRun=All`, {
      ...stored,
      metadata: { ...stored.metadata, labels: { a: 'b' } },
    });
    expect(put.status).toBe(200);
    expect((await call('DELETE', `${slicesPath}/d1`, { dryRun: ['All'] })).status).toBe(200);
    expect((await call('DELETE', `${slicesPath}?dryRun=All`)).status).toBe(200);
    expect(server.store.get('resourceslices', 'd1')).toEqual(stored);
    expect(server.store.resourceVersion()).toBe(rv + 1);

    const bad = await call('POST', `${slicesPath}?dryRun=Some`, slice('d2', 'node-a'));
    expect(bad.status).toBe(422);
    expect(bad.body['message']).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"',
    );
  });

  it('keeps a claim status behind its subresource and the spec immutable', async () => {
    const claim = {
      metadata: { name: 'c1', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }] },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
      status: { reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }] },
    };
    const created = (await call('POST', claimsPath('ns1'), claim)).body as {
      metadata: Record<string, unknown>;
      status?: unknown;
    };
    expect(created.metadata['namespace']).toBe('ns1');
    expect(created.metadata['ownerReferences']).toEqual(claim.metadata.ownerReferences);
    expect(created.status).toBeUndefined();
    const status = {
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }],
      allocation: {
        devices: {
          results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' }],
        },
      },
    };
    const withStatus = await call('PUT', `${claimsPath('ns1')}/c1/status`, { ...created, status });
    expect(withStatus.body['status']).toEqual(status);
    const changed = await call('PUT', `${claimsPath('ns1')}/c1`, {
      ...withStatus.body,
      spec: { devices: { requests: [] } },
    });
    expect(changed).toMatchObject({
      status: 422,
      body: {
        details: {
          causes: [{ field: 'spec', message: expect.stringContaining('field is immutable') as unknown }],
        },
      },
    });
    const badStatus = await call('PUT', `${claimsPath('ns1')}/c1/status`, {
      ...withStatus.body,
      status: {
        allocation: {
          devices: {
            results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'GPU 0' }],
          },
        },
      },
    });
    expect(badStatus.body).toMatchObject({
      details: { causes: [{ field: 'status.allocation.devices.results[0].device' }] },
    });
    expect((await call('GET', '/apis/resource.k8s.io/v1/resourceclaims')).body['items']).toHaveLength(1);
    expect((await call('GET', `${claimsPath('other')}/c1`)).status).toBe(404);
  });

  it('serves DeviceClasses and Nodes', async () => {
    const cls = {
      metadata: { name: 'gpu.example.com' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
    };
    expect((await call('POST', '/apis/resource.k8s.io/v1/deviceclasses', cls)).status).toBe(201);
    expect((await call('GET', '/apis/resource.k8s.io/v1/deviceclasses/gpu.example.com')).body).toMatchObject({
      kind: 'DeviceClass',
      spec: cls.spec,
    });
    expect((await call('GET', '/api/v1/nodes/node-a')).body).toMatchObject({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: 'node-a' },
    });
    expect((await call('GET', '/api/v1/nodes')).body).toMatchObject({
      kind: 'NodeList',
      items: [{ metadata: { name: 'node-a' } }],
    });
  });

  it('requires the bearer token when one is set (401) and applies the authorizer (403)', async () => {
    await server.close();
    server = await createApiServer({ token: 'secret', authorize: (a) => a.verb !== 'deletecollection' });
    expect(await call('GET', slicesPath)).toMatchObject({ status: 401, body: { reason: 'Unauthorized' } });
    expect((await call('GET', slicesPath, undefined, { Authorization: 'Bearer secret' })).status).toBe(200);
    expect(await call('DELETE', slicesPath, undefined, { Authorization: 'Bearer secret' })).toMatchObject({
      status: 403,
      body: {
        reason: 'Forbidden',
        message: expect.stringContaining(
          'cannot deletecollection resource "resourceslices" in API group "resource.k8s.io" at the cluster scope',
        ) as unknown,
      },
    });
  });
});

describe('kubelet-sim API server close', () => {
  it('ends a connection still in its TLS handshake instead of waiting for it', async () => {
    const tlsServer = await createApiServer({ tls: true, token: 't' });
    // A client connected over TCP but not yet through the TLS handshake (a driver connecting at that instant).
    const socket = connect(Number(new URL(tlsServer.url).port), '127.0.0.1');
    await once(socket, 'connect');
    const ended = once(socket, 'close');
    // Without the fix `close` waits for the handshake timeout (120 s), far beyond this test's bound.
    await tlsServer.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  }, 10_000);
});
