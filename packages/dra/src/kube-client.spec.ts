import { KubeApiError } from '@kdp/core';
import { createApiServer, type ApiServer, type KubeObject } from '@kdp/kubelet-sim';
import {
  deleteKube,
  KubeStatusError,
  postKubeJson,
  putKubeJson,
  watchKube,
  type KubeWatchEvent,
} from './kube-client';

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

let api: ApiServer;
beforeEach(async () => {
  api = await createApiServer({ token: 'secret' });
});
afterEach(() => api.close());

describe('kube-client', () => {
  it('creates, replaces with resourceVersion, answers 409 for a stale one, deletes', async () => {
    const access = { server: api.url, token: 'secret' };
    const created = (await postKubeJson(access, PATH, slice('a'))) as {
      metadata: { resourceVersion: string };
    };
    const updated = (await putKubeJson(access, `${PATH}/a`, {
      ...slice('a'),
      metadata: created.metadata,
    })) as {
      metadata: { resourceVersion: string };
    };
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    const stale = await putKubeJson(access, `${PATH}/a`, { ...slice('a'), metadata: created.metadata }).catch(
      (e: unknown) => e,
    );
    expect(stale).toBeInstanceOf(KubeStatusError);
    expect(stale).toBeInstanceOf(KubeApiError);
    expect(stale).toMatchObject({ status: 409, reason: 'Conflict' });
    await expect(
      deleteKube(access, `${PATH}/a`, {
        preconditions: { resourceVersion: created.metadata.resourceVersion },
      }),
    ).rejects.toMatchObject({ status: 409 });
    await deleteKube(access, `${PATH}/a`);
    await expect(deleteKube(access, `${PATH}/a`)).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
  });

  it('gives the causes of a 422 and the 401 without a token', async () => {
    const invalid = await postKubeJson(
      { server: api.url, token: 'secret' },
      PATH,
      slice('b', { devices: [{ name: 'Not_A_Label' }] }),
    ).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, reason: 'Invalid' });
    expect((invalid as KubeStatusError).causes.map((c) => c.field)).toEqual(['spec.devices[0].name']);
    expect((invalid as Error).message).toMatch(/^POST \/apis\/resource\.k8s\.io\/v1\/resourceslices: 422 /);
    await expect(postKubeJson({ server: api.url }, PATH, slice('c'))).rejects.toMatchObject({ status: 401 });
  });

  it('streams watch events from a resourceVersion with a field selector, and stops', async () => {
    const access = { server: api.url, token: 'secret' };
    api.store.create('nodes', { metadata: { name: 'n' } }); // resourceVersion 0 would mean "list first"
    const rv = String(api.store.resourceVersion());
    const events: KubeWatchEvent[] = [];
    let notify = (): void => undefined;
    const watch = watchKube(access, `${PATH}?fieldSelector=spec.nodeName%3Dn&resourceVersion=${rv}`, (e) => {
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
    const watch = watchKube({ server: api.url, token: 'wrong' }, PATH, () => undefined);
    await expect(watch.done).rejects.toMatchObject({ status: 401 });
  });
});
