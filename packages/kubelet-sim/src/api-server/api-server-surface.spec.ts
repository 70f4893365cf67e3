import { createApiCall } from './api-call.fixture';
import { createApiServer, type ApiServer } from './api-server';

describe('the API server surface kubectl uses', () => {
  let server: ApiServer;
  const call = createApiCall(() => server.url);
  const pods = '/api/v1/namespaces/default/pods';
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  };

  afterEach(async () => {
    await server.close();
  });

  it('serves OpenAPI v3 paths whose PATCH takes fieldValidation and no strategic merge patch', async () => {
    server = await createApiServer();
    const root = (await call('GET', '/openapi/v3')).body;
    expect(root).toEqual({
      paths: {
        'api/v1': { serverRelativeURL: '/openapi/v3/api/v1' },
        'apis/resource.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/resource.k8s.io/v1' },
        'apis/admissionregistration.k8s.io/v1': {
          serverRelativeURL: '/openapi/v3/apis/admissionregistration.k8s.io/v1',
        },
      },
    });
    const doc = (await call('GET', '/openapi/v3/apis/resource.k8s.io/v1')).body as {
      paths: Record<
        string,
        { patch?: { parameters: Array<{ name: string }>; requestBody: { content: object } } }
      >;
    };
    const patch = doc.paths['/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/{name}']?.patch;
    expect(patch).toMatchObject({
      'x-kubernetes-group-version-kind': { group: 'resource.k8s.io', version: 'v1', kind: 'ResourceClaim' },
    });
    expect(patch?.parameters.map((p) => p.name)).toContain('fieldValidation');
    expect(Object.keys(patch?.requestBody.content ?? {})).not.toContain(
      'application/strategic-merge-patch+json',
    );
    expect((await call('GET', '/openapi/v3/apis/resource.k8s.io/v1beta1')).status).toBe(404);
  });

  it('drops undeclared fields: 400 when Strict, a Warning header when Warn', async () => {
    server = await createApiServer();
    const extra = { ...pod, spec: { containers: [{ name: 'c', image: 'x', imagee: 'y' }], bogus: 1 } };
    const strict = await call('POST', `${pods}?fieldValidation=Strict`, extra);
    expect(strict.status).toBe(400);
    expect(strict.body['message']).toBe(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagee", unknown field "spec.bogus"',
    );
    const warn = await call('POST', pods, extra);
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe(
      '299 - "unknown field \\"spec.containers[0].imagee\\"", 299 - "unknown field \\"spec.bogus\\""',
    );
    expect(warn.body['spec']).toEqual({ containers: [{ name: 'c', image: 'x' }] });
    expect((await call('POST', `${pods}?fieldValidation=Loose`, pod)).status).toBe(400);
  });

  it('patches with every media type, applies to create, and refuses others with 415', async () => {
    server = await createApiServer();
    const at = `${pods}/p`;
    const apply = await call('PATCH', `${at}?fieldManager=me`, pod, {
      'Content-Type': 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(201);
    const smp = await call(
      'PATCH',
      at,
      { spec: { containers: [{ name: 'd', image: 'y' }] } },
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    expect((smp.body['spec'] as { containers: unknown[] }).containers).toHaveLength(2);
    const merge = await call(
      'PATCH',
      at,
      { metadata: { labels: { a: 'b' } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(merge.body['metadata']).toMatchObject({ labels: { a: 'b' } });
    const json = await call('PATCH', at, [{ op: 'remove', path: '/metadata/labels' }], {
      'Content-Type': 'application/json-patch+json',
    });
    expect(json.body['metadata']).not.toHaveProperty('labels');
    expect((await call('PATCH', at, {}, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect(
      (await call('PATCH', at, pod, { 'Content-Type': 'application/apply-patch+yaml' })).body['message'],
    ).toBe('PATCH: fieldManager is required for apply requests');
    expect(
      (await call('PATCH', `${pods}/q`, {}, { 'Content-Type': 'application/merge-patch+json' })).status,
    ).toBe(404);
  });

  it('answers a Table when asked, with the kind’s columns', async () => {
    server = await createApiServer({ nodes: ['n'] });
    await call('POST', pods, pod);
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const table = (await call('GET', pods, undefined, accept)).body as {
      kind: string;
      columnDefinitions: Array<{ name: string }>;
      rows: Array<{ cells: unknown[]; object: { kind: string } }>;
    };
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
    ]);
    expect(table.rows[0]?.cells.slice(0, 4)).toEqual(['p', '0/1', 'Pending', '0']);
    expect(table.rows[0]?.object.kind).toBe('PartialObjectMetadata');
    const claimCols = (await call('GET', '/apis/resource.k8s.io/v1/resourceclaims', undefined, accept))
      .body as {
      columnDefinitions: Array<{ name: string }>;
    };
    expect(claimCols.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'State', 'Age']);
  });

  it('accepts DeleteOptions and refuses a bad propagation policy', async () => {
    server = await createApiServer();
    await call('POST', pods, pod);
    expect((await call('DELETE', `${pods}/p?propagationPolicy=Sideways`)).status).toBe(400);
    expect(
      (await call('DELETE', `${pods}/p`, { kind: 'DeleteOptions', gracePeriodSeconds: -1 })).status,
    ).toBe(400);
    const deleted = await call('DELETE', `${pods}/p?gracePeriodSeconds=0`, {
      propagationPolicy: 'Background',
    });
    expect(deleted.body).toMatchObject({ status: 'Success' });
  });

  it('serves only the configured resource.k8s.io versions, converting at the boundary', async () => {
    server = await createApiServer({ resourceApiVersions: ['v1beta1'] });
    expect((await call('GET', '/apis')).body).toMatchObject({
      groups: [
        { versions: [{ version: 'v1beta1' }], preferredVersion: { version: 'v1beta1' } },
        { name: 'admissionregistration.k8s.io' },
      ],
    });
    expect((await call('GET', '/apis/resource.k8s.io/v1')).status).toBe(404);
    expect((await call('GET', '/apis/resource.k8s.io/v1/resourceslices')).status).toBe(404);
    const claims = '/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims';
    const created = await call('POST', claims, {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'r', deviceClassName: 'gpu', count: 1 }] } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      apiVersion: 'resource.k8s.io/v1beta1',
      spec: { devices: { requests: [{ name: 'r', deviceClassName: 'gpu', count: 1 }] } },
    });
    expect(server.store.get('resourceclaims', 'c', 'default')['spec']).toEqual({
      devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', count: 1 } }] },
    });
    const list = (await call('GET', claims)).body;
    expect(list).toMatchObject({ kind: 'ResourceClaimList', apiVersion: 'resource.k8s.io/v1beta1' });
    const watch = await fetch(`${server.url}${claims}?watch=true&resourceVersion=0`);
    const reader = watch.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(JSON.parse(first.split('\n')[0] ?? '')).toMatchObject({
      type: 'ADDED',
      object: {
        apiVersion: 'resource.k8s.io/v1beta1',
        spec: { devices: { requests: [{ deviceClassName: 'gpu' }] } },
      },
    });
    await reader?.cancel();
  });
});
