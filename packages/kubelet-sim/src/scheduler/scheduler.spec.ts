import { createObjectStore, type KubeObject, type ObjectStore } from '../api-server/object-store';
import { createFakeClock } from '../testing/fake-clock';
import type { ResourceClaim } from './dra-types';
import type { Pod } from './pod-types';
import { createScheduler, type Scheduler, type SchedulerEvent } from './scheduler';
import { fixtureClass, fixtureSlice, gpuDevice } from './testing/dra-fixtures';

const obj = <T>(o: T): KubeObject => o as unknown as KubeObject;

interface Harness {
  store: ObjectStore;
  scheduler: Scheduler;
  events: SchedulerEvent[];
}

let harness: Harness | undefined;
afterEach(() => harness?.scheduler.close());

function start(nodes: string[], options: { slices?: boolean } = {}): Harness {
  const store = createObjectStore();
  for (const name of nodes) {
    store.create('nodes', obj({ metadata: { name, labels: { 'kubernetes.io/hostname': name } } }));
    if (options.slices !== false)
      store.create(
        'resourceslices',
        obj(fixtureSlice(`${name}-gpu`, [gpuDevice('gpu-0'), gpuDevice('gpu-1')], { node: name })),
      );
  }
  store.create('deviceclasses', obj(fixtureClass('gpu')));
  const events: SchedulerEvent[] = [];
  const scheduler = createScheduler({ store, clock: createFakeClock(), onEvent: (e) => events.push(e) });
  harness = { store, scheduler, events };
  return harness;
}

const template = (name: string, expression?: string): KubeObject =>
  obj({
    metadata: { name, namespace: 'default' },
    spec: {
      metadata: { labels: { app: 'x' } },
      spec: {
        devices: {
          requests: [
            {
              name: 'gpu',
              exactly: {
                deviceClassName: 'gpu',
                ...(expression === undefined ? {} : { selectors: [{ cel: { expression } }] }),
              },
            },
          ],
        },
      },
    },
  });

/** The spec of a claim for one GPU. */
const claimSpec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } };

const pod = (
  name: string,
  claims: object[] = [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
): KubeObject =>
  obj({
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'x' }], resourceClaims: claims },
  });

/** Creates the `one-gpu` template with the selector and pod p1 using it; waits for the scheduler. */
async function podWithSelector(store: ObjectStore, scheduler: Scheduler, expression: string): Promise<void> {
  store.create('resourceclaimtemplates', template('one-gpu', expression), 'default');
  store.create('pods', pod('p1'), 'default');
  await scheduler.idle();
}

const getPod = (store: ObjectStore, name: string): Pod =>
  store.get('pods', name, 'default') as unknown as Pod;
const claims = (store: ObjectStore): ResourceClaim[] =>
  store.list('resourceclaims').items as unknown as ResourceClaim[];
const condition = (p: Pod): object | undefined =>
  p.status?.conditions?.find((c) => c.type === 'PodScheduled');
const eventsOf = (store: ObjectStore): { reason: string; type: string; message: string }[] =>
  store.list('events').items as unknown as { reason: string; type: string; message: string }[];

describe('createScheduler', () => {
  it('creates a claim from the template, allocates it on a node, reserves it and binds the pod', async () => {
    const { store, scheduler, events } = start(['node-a']);
    store.create('resourceclaimtemplates', template('one-gpu'), 'default');
    const created = store.create('pods', pod('p1'), 'default');
    await scheduler.idle();
    const [claim] = claims(store);
    expect(claim?.metadata).toMatchObject({
      name: expect.stringMatching(/^p1-gpu-[a-z0-9]{5}$/),
      labels: { app: 'x' },
      annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: created.metadata.uid, controller: true },
      ],
    });
    expect(claim?.status).toEqual({
      allocation: {
        devices: {
          results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' }],
        },
        nodeSelector: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] },
          ],
        },
      },
      reservedFor: [{ resource: 'pods', name: 'p1', uid: created.metadata.uid }],
    });
    const bound = getPod(store, 'p1');
    expect(bound.spec.nodeName).toBe('node-a');
    expect(bound.status?.resourceClaimStatuses).toEqual([
      { name: 'gpu', resourceClaimName: claim?.metadata.name },
    ]);
    expect(condition(bound)).toMatchObject({ status: 'True' });
    expect(eventsOf(store)).toMatchObject([
      { type: 'Normal', reason: 'Scheduled', message: 'Successfully assigned default/p1 to node-a' },
    ]);
    expect(events).toEqual([
      { type: 'scheduled', pod: 'default/p1', node: 'node-a', claims: [claim?.metadata.name] },
    ]);
  });

  it('leaves a pod whose claim fits nowhere Pending with the scheduler message, and retries when a slice appears', async () => {
    const { store, scheduler, events } = start(['node-a', 'node-b', 'node-c']);
    await podWithSelector(store, scheduler, 'device.attributes["gpu.example.com"].model == "H100"');
    const message =
      '0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    expect(condition(getPod(store, 'p1'))).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message,
    });
    expect(eventsOf(store)).toMatchObject([{ type: 'Warning', reason: 'FailedScheduling', message }]);
    expect(events).toEqual([{ type: 'unschedulable', pod: 'default/p1', reason: 'Unschedulable', message }]);
    store.create(
      'resourceslices',
      obj(
        fixtureSlice('h100', [gpuDevice('gpu-9', { attributes: { model: { string: 'H100' } } })], {
          node: 'node-b',
          pool: 'h',
        }),
      ),
    );
    await scheduler.idle();
    expect(getPod(store, 'p1').spec.nodeName).toBe('node-b');
    expect(eventsOf(store)).toHaveLength(2);
  });

  it('spreads pods to the node with the fewest devices in use', async () => {
    const { store, scheduler } = start(['node-a', 'node-b']);
    store.create('resourceclaimtemplates', template('one-gpu'), 'default');
    for (const name of ['p1', 'p2', 'p3', 'p4']) store.create('pods', pod(name), 'default');
    await scheduler.idle();
    expect(['p1', 'p2', 'p3', 'p4'].map((n) => getPod(store, n).spec.nodeName)).toEqual([
      'node-a',
      'node-b',
      'node-a',
      'node-b',
    ]);
    const other = {
      ...pod('other'),
      spec: { ...(pod('other')['spec'] as object), schedulerName: 'my-scheduler' },
    };
    store.create('pods', obj(other), 'default');
    store.create('pods', pod('p5'), 'default');
    await scheduler.idle();
    expect(condition(getPod(store, 'p5'))).toMatchObject({
      message:
        '0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    });
    store.delete('pods', 'p1', { namespace: 'default' });
    await scheduler.idle();
    expect(getPod(store, 'p5').spec.nodeName).toBe('node-a');
    expect(getPod(store, 'other').spec.nodeName).toBeUndefined();
    expect(getPod(store, 'other').status?.conditions).toBeUndefined();
    expect(
      claims(store).map((c) => c.metadata.annotations?.['resource.kubernetes.io/pod-claim-name']),
    ).toHaveLength(5); // p2..p5, and 'other' (the controller serves every pod)
  });

  it('shares a named claim between pods, and deallocates it when its last pod goes', async () => {
    const { store, scheduler } = start(['node-a', 'node-b']);
    store.create(
      'resourceclaims',
      obj({ metadata: { name: 'shared', namespace: 'default' }, spec: claimSpec }),
      'default',
    );
    const both = [{ name: 'gpu', resourceClaimName: 'shared' }];
    store.create('pods', pod('p1', both), 'default');
    store.create('pods', pod('p2', both), 'default');
    await scheduler.idle();
    expect([getPod(store, 'p1').spec.nodeName, getPod(store, 'p2').spec.nodeName]).toEqual([
      'node-a',
      'node-a',
    ]);
    expect(claims(store)[0]?.status?.reservedFor?.map((r) => r.name)).toEqual(['p1', 'p2']);
    expect(claims(store)[0]?.status?.allocation?.devices.results).toMatchObject([
      { request: 'gpu', device: 'gpu-0' },
    ]);
    store.delete('pods', 'p1', { namespace: 'default' });
    await scheduler.idle();
    expect(claims(store)[0]?.status?.reservedFor?.map((r) => r.name)).toEqual(['p2']);
    expect(claims(store)[0]?.status?.allocation).toBeDefined();
    store.delete('pods', 'p2', { namespace: 'default' });
    await scheduler.idle();
    expect(claims(store)[0]?.status).toEqual({});
  });

  it('words node filters, missing templates and classes as kube-scheduler', async () => {
    const { store, scheduler } = start(['node-a', 'node-b', 'node-c']);
    store.update('nodes', obj({ metadata: { name: 'node-a' }, spec: { unschedulable: true } }));
    store.update(
      'nodes',
      obj({ metadata: { name: 'node-b' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
    );
    store.create(
      'resourceclaimtemplates',
      template('one-gpu', 'device.attributes["gpu.example.com"].model == "H100"'),
      'default',
    );
    store.create('pods', pod('p1'), 'default');
    store.create('pods', pod('p2', [{ name: 'gpu', resourceClaimTemplateName: 'missing' }]), 'default');
    await scheduler.idle();
    expect(condition(getPod(store, 'p1'))).toMatchObject({
      message:
        '0/3 nodes are available: 1 cannot allocate all claims, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    });
    expect(condition(getPod(store, 'p2'))).toMatchObject({
      reason: 'Unschedulable',
      message:
        '0/3 nodes are available: pod "default/p2": ResourceClaim not created yet. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    });
    store.create('resourceclaimtemplates', template('missing'), 'default');
    await scheduler.idle();
    expect(getPod(store, 'p2').spec.nodeName).toBe('node-c');
    store.create(
      'resourceclaims',
      obj({
        metadata: { name: 'c3', namespace: 'default' },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'nope' } }] } },
      }),
      'default',
    );
    store.create('pods', pod('p3', [{ name: 'gpu', resourceClaimName: 'c3' }]), 'default');
    await scheduler.idle();
    expect(condition(getPod(store, 'p3'))).toMatchObject({
      message:
        '0/3 nodes are available: request gpu: device class nope does not exist. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    });
  });

  it('gives up an allocated, unreserved claim that no node can use (PostFilter) and allocates it again', async () => {
    const { store, scheduler, events } = start(['node-a', 'node-b']);
    store.create(
      'resourceclaims',
      obj({ metadata: { name: 'c', namespace: 'default' }, spec: claimSpec }),
      'default',
    );
    const onA = {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }],
    };
    const claim = store.get('resourceclaims', 'c', 'default');
    const allocation = {
      devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' }] },
      nodeSelector: onA,
    };
    store.update('resourceclaims', obj({ ...claim, status: { allocation } }), {
      namespace: 'default',
      subresource: 'status',
    });
    store.update('nodes', obj({ metadata: { name: 'node-a' }, spec: { unschedulable: true } }));
    store.create('pods', pod('p1', [{ name: 'gpu', resourceClaimName: 'c' }]), 'default');
    await scheduler.idle();
    expect(events[0]).toEqual({
      type: 'unschedulable',
      pod: 'default/p1',
      reason: 'Unschedulable',
      message:
        '0/2 nodes are available: 1 node(s) were unschedulable, 1 resourceclaim not available on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    });
    expect(getPod(store, 'p1').spec.nodeName).toBe('node-b');
    expect(claims(store)[0]?.status?.allocation?.devices.results[0]?.pool).toBe('node-b');
  });

  it('reports a CEL runtime error as a SchedulerError, naming the device', async () => {
    const { store, scheduler, events } = start(['node-a']);
    await podWithSelector(store, scheduler, 'device.attributes["gpu.example.com"].nosuch == 1');
    const message =
      'running "DynamicResources" filter plugin: claim default/' +
      (claims(store)[0]?.metadata.name ?? '') +
      ': selector #0 on device gpu.example.com/node-a/gpu-0: CEL runtime error: no such key: nosuch';
    expect(condition(getPod(store, 'p1'))).toMatchObject({
      status: 'False',
      reason: 'SchedulerError',
      message,
    });
    expect(events).toEqual([{ type: 'unschedulable', pod: 'default/p1', reason: 'SchedulerError', message }]);
  });

  it('runs nothing while nothing changes, and stops on close', async () => {
    const { store, scheduler, events } = start(['node-a']);
    await scheduler.idle();
    scheduler.close();
    store.create('resourceclaimtemplates', template('one-gpu'), 'default');
    store.create('pods', pod('p1'), 'default');
    await scheduler.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(getPod(store, 'p1').spec.nodeName).toBeUndefined();
    expect(events).toEqual([]);
  });
});
