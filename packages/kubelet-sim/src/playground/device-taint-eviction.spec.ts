import { createObjectStore, type KubeObject, type ObjectStore } from '../api-server/object-store';
import { createFakeClock } from '../testing/fake-clock';
import { createDeviceTaintEviction } from './device-taint-eviction';

const obj = <T>(o: T): KubeObject => o as unknown as KubeObject;
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A pool of two devices on node n, gpu-1 with `taints`. */
function putSlice(store: ObjectStore, taints: object[], generation = 1): void {
  const slice = {
    metadata: { name: 's' },
    spec: {
      driver: 'gpu.example.com',
      pool: { name: 'n/gpu', generation, resourceSliceCount: 1 },
      nodeName: 'n',
      devices: [{ name: 'gpu-0' }, { name: 'gpu-1', ...(taints.length > 0 ? { taints } : {}) }],
    },
  };
  if (generation === 1) store.create('resourceslices', obj(slice));
  else store.update('resourceslices', obj({ ...slice, metadata: store.get('resourceslices', 's').metadata }));
}

/** A pod `name` holding claim `name`, allocated `device` with `tolerations`. */
function putPod(store: ObjectStore, name: string, device: string, tolerations?: object[]): void {
  const pod = store.create(
    'pods',
    obj({ metadata: { name }, spec: { nodeName: 'n', containers: [{ name: 'c', image: 'x' }] } }),
    'default',
  );
  const claim = store.create(
    'resourceclaims',
    obj({
      metadata: { name },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu' } }] } },
    }),
    'default',
  );
  store.update(
    'resourceclaims',
    obj({
      ...claim,
      status: {
        allocation: {
          devices: {
            results: [
              {
                request: 'r',
                driver: 'gpu.example.com',
                pool: 'n/gpu',
                device,
                ...(tolerations ? { tolerations } : {}),
              },
            ],
          },
        },
        reservedFor: [{ resource: 'pods', name, uid: pod.metadata.uid }],
      },
    }),
    { namespace: 'default', subresource: 'status' },
  );
}

const podNames = (store: ObjectStore): string[] =>
  store
    .list('pods')
    .items.map((p) => p.metadata.name ?? '')
    .sort();

describe('createDeviceTaintEviction', () => {
  it('evicts pods whose device has a NoExecute taint they do not tolerate, after tolerationSeconds', async () => {
    const clock = createFakeClock(Date.parse('2027-01-15T08:00:00Z'));
    const store = createObjectStore({ clock });
    putSlice(store, []);
    putPod(store, 'other-device', 'gpu-0');
    putPod(store, 'plain', 'gpu-1');
    putPod(store, 'tolerates-noschedule', 'gpu-1', [
      { key: 'kdp.dev/unhealthy', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    putPod(store, 'for-ever', 'gpu-1', [{ key: 'kdp.dev/unhealthy', operator: 'Exists' }]);
    putPod(store, 'for-a-minute', 'gpu-1', [
      { key: 'kdp.dev/unhealthy', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
    const evicted: string[] = [];
    const eviction = createDeviceTaintEviction({ store, clock, onEvict: (pod) => evicted.push(pod) });
    await settle();
    // NoSchedule evicts nothing.
    putSlice(store, [{ key: 'kdp.dev/unhealthy', value: 'Xid-94', effect: 'NoSchedule' }], 2);
    await settle();
    expect(evicted).toEqual([]);
    // NoExecute: the pods that do not tolerate it go at once, with a DisruptionTarget condition and an event.
    const patched: string[] = [];
    const stop = store.watch('pods', { resourceVersion: String(store.resourceVersion()) }, (e) => {
      const conditions = (e.object['status'] as { conditions?: { type: string; reason: string }[] })
        .conditions;
      if (e.type === 'MODIFIED')
        patched.push(`${e.object.metadata.name}: ${conditions?.map((c) => `${c.type}/${c.reason}`).join()}`);
    });
    putSlice(
      store,
      [{ key: 'kdp.dev/unhealthy', value: 'Xid-79', effect: 'NoExecute', timeAdded: '2027-01-15T08:00:00Z' }],
      3,
    );
    await settle();
    stop();
    expect(evicted.sort()).toEqual(['default/plain', 'default/tolerates-noschedule']);
    expect(patched.sort()).toEqual([
      'plain: DisruptionTarget/DeletionByDeviceTaintManager',
      'tolerates-noschedule: DisruptionTarget/DeletionByDeviceTaintManager',
    ]);
    expect(store.list('events').items.map((e) => e['reason'])).toContain('DeviceTaintManagerEviction');
    expect(podNames(store)).toEqual(['for-a-minute', 'for-ever', 'other-device']);
    // tolerationSeconds counts from timeAdded.
    clock.advance(59_000);
    await settle();
    expect(podNames(store)).toEqual(['for-a-minute', 'for-ever', 'other-device']);
    clock.advance(1_000);
    await settle();
    expect(podNames(store)).toEqual(['for-ever', 'other-device']);
    eviction.close();
    expect(clock.pending).toBe(0);
  });

  it('leaves pods alone once the taint is gone before their tolerationSeconds run out', async () => {
    const clock = createFakeClock(Date.parse('2027-01-15T08:00:00Z'));
    const store = createObjectStore({ clock });
    putSlice(store, []);
    putPod(store, 'for-a-minute', 'gpu-1', [{ operator: 'Exists', tolerationSeconds: 60 }]);
    const eviction = createDeviceTaintEviction({ store, clock });
    putSlice(store, [{ key: 'kdp.dev/unhealthy', effect: 'NoExecute' }], 2);
    await settle();
    clock.advance(30_000);
    putSlice(store, [], 3);
    await settle();
    clock.advance(60_000);
    await settle();
    expect(podNames(store)).toEqual(['for-a-minute']);
    eviction.close();
  });
});
