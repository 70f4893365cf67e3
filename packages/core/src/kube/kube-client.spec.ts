import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiServer, type ApiServer, type KubeObject } from '@kdp/kubelet-sim';
import { KubeApiError } from './kube-api-error';
import { createKubeClient, type KubeClient } from './kube-client';
import type { KubeWatchEvent } from './kube-watch';

const PATH = '/apis/resource.k8s.io/v1/resourceslices';
const slice = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name },
  spec: {
    driver: 'gpu.kdp.dev',
    nodeName: 'n',
    pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
    ...extra,
  },
});

describe('createKubeClient against kubelet-sim’s API server', () => {
  let api: ApiServer;
  let client: KubeClient;
  beforeEach(async () => {
    api = await createApiServer({ token: 'secret' });
    client = createKubeClient({ access: { server: api.url, token: 'secret' } });
  });
  afterEach(() => api.close());

  it('creates, replaces with resourceVersion, answers 409 for a stale one, deletes with preconditions', async () => {
    const created = (await client.create(PATH, slice('a'))) as { metadata: { resourceVersion: string } };
    const updated = (await client.update(`${PATH}/a`, { ...slice('a'), metadata: created.metadata })) as {
      metadata: { resourceVersion: string };
    };
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    const stale = await client
      .update(`${PATH}/a`, { ...slice('a'), metadata: created.metadata })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(KubeApiError);
    expect(stale).toMatchObject({ status: 409, reason: 'Conflict' });
    await expect(
      client.delete(`${PATH}/a`, { preconditions: { resourceVersion: created.metadata.resourceVersion } }),
    ).rejects.toMatchObject({ status: 409 });
    await client.delete(`${PATH}/a`);
    await expect(client.delete(`${PATH}/a`)).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
  });

  it('gets one object and lists with a field selector', async () => {
    api.store.create('resourceslices', slice('x'));
    api.store.create('resourceslices', slice('y', { nodeName: 'm' }));
    expect(await client.get(`${PATH}/x`)).toMatchObject({ metadata: { name: 'x' } });
    const list = await client.list(`${PATH}?fieldSelector=${encodeURIComponent('spec.nodeName=n')}`);
    expect(list.items.map((item) => (item as KubeObject).metadata.name)).toEqual(['x']);
    expect(list.resourceVersion).toBe(String(api.store.resourceVersion()));
  });

  it('gives the causes of a 422 and the 401 without a token', async () => {
    const invalid = await client
      .create(PATH, slice('b', { devices: [{ name: 'Not_A_Label' }] }))
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, reason: 'Invalid' });
    expect((invalid as KubeApiError).causes.map((c) => c.field)).toEqual(['spec.devices[0].name']);
    expect((invalid as Error).message).toMatch(/^POST \/apis\/resource\.k8s\.io\/v1\/resourceslices: 422 /);
    const anonymous = createKubeClient({ access: { server: api.url } });
    await expect(anonymous.create(PATH, slice('c'))).rejects.toMatchObject({ status: 401 });
  });

  it('streams watch events from a resourceVersion with a field selector, and stops', async () => {
    api.store.create('nodes', { metadata: { name: 'n' } }); // resourceVersion 0 would mean "list first"
    const rv = String(api.store.resourceVersion());
    const events: KubeWatchEvent[] = [];
    let notify = (): void => undefined;
    const watch = client.watch(`${PATH}?fieldSelector=spec.nodeName%3Dn&resourceVersion=${rv}`, (e) => {
      events.push(e);
      notify();
    });
    const two = new Promise<void>((resolve) => (notify = () => events.length >= 2 && resolve()));
    api.store.create('resourceslices', slice('other-node', { nodeName: 'm' }));
    api.store.create('resourceslices', slice('x'));
    api.store.delete('resourceslices', 'x');
    await two;
    expect(events.map((e) => [e.type, (e.object['metadata'] as { name: string }).name])).toEqual([
      ['ADDED', 'x'],
      ['DELETED', 'x'],
    ]);
    watch.stop();
    await watch.done;
  });

  it('rejects a refused watch with the status', async () => {
    const refused = createKubeClient({ access: { server: api.url, token: 'wrong' } });
    await expect(refused.watch(PATH, () => undefined).done).rejects.toMatchObject({ status: 401 });
  });
});

describe('createKubeClient against a scripted server', () => {
  let server: Server;
  let url: string;
  let requests: string[];
  let handle: (req: IncomingMessage, res: ServerResponse) => void;
  beforeEach(async () => {
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('resolves with the JSON object, and rejects with the status and the message of the API server', async () => {
    handle = (req, res) => {
      if (req.url === '/ok') res.writeHead(200).end('{"kind":"Node"}');
      else if (req.url === '/text') res.writeHead(200).end('not json');
      else res.writeHead(403).end('{"message":"nodes \\"n\\" is forbidden"}');
    };
    const client = createKubeClient({ access: { server: url, token: 't' } });
    expect(await client.get('/ok')).toEqual({ kind: 'Node' });
    await expect(client.get('/api/v1/nodes/n')).rejects.toThrow(
      new KubeApiError(403, 'GET /api/v1/nodes/n: 403 nodes "n" is forbidden'),
    );
    await expect(client.get('/text')).rejects.toThrow('GET /text: the answer is not JSON');
  });

  it('refuses an answer over the body limit', async () => {
    handle = (_req, res) => res.writeHead(200).end(JSON.stringify({ data: 'x'.repeat(2000) }));
    const client = createKubeClient({ access: { server: url }, maxResponseBytes: 1000 });
    await expect(client.get('/big?x=1')).rejects.toThrow('GET /big: answer larger than 1000 bytes');
  });

  it('lists page by page with limit and continue, and unpaged once a continue token expired', async () => {
    const page = (items: string[], next?: string): string =>
      JSON.stringify({ metadata: { resourceVersion: '42', continue: next }, items });
    handle = (req, res) => {
      const query = new URL(req.url ?? '', url).searchParams;
      if (query.get('continue') === 'old') res.writeHead(410).end('{"reason":"Expired","message":"gone"}');
      else if (query.get('limit') === null) res.writeHead(200).end(page(['a', 'b', 'c']));
      else if (query.get('continue') === null) res.writeHead(200).end(page(['a', 'b'], 'two'));
      else res.writeHead(200).end(page(['c']));
    };
    const client = createKubeClient({ access: { server: url } });
    expect(await client.list('/things?fieldSelector=x%3Dy', { pageSize: 2 })).toEqual({
      resourceVersion: '42',
      items: ['a', 'b', 'c'],
    });
    expect(requests).toEqual([
      '/things?fieldSelector=x%3Dy&limit=2',
      '/things?fieldSelector=x%3Dy&limit=2&continue=two',
    ]);
    requests = [];
    handle = (req, res) => {
      const query = new URL(req.url ?? '', url).searchParams;
      if (query.get('continue') === 'old') res.writeHead(410).end('{"reason":"Expired","message":"gone"}');
      else if (query.get('limit') === null) res.writeHead(200).end(page(['a', 'b', 'c']));
      else res.writeHead(200).end(page(['a'], 'old'));
    };
    expect((await client.list('/things')).items).toEqual(['a', 'b', 'c']);
    expect(requests).toEqual(['/things?limit=500', '/things?limit=500&continue=old', '/things']);
  });
});
