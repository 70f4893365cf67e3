import { createApiServer, type ApiServer, type KubeObject } from '@kdp/kubelet-sim';
import {
  compareDeviceNames,
  type SliceCounterSet,
  type SliceDevice,
  type SlicePool,
  type SlicePools,
} from './pool-slices';
import { createSlicePublisher, type SlicePublisher, type SlicePublisherEvent } from './slice-publisher';

const DRIVER = 'gpu.kdp.dev';
const NODE = 'node-a';
const WAIT_MS = 10_000;

interface Slice extends KubeObject {
  spec: {
    driver: string;
    nodeName: string;
    pool: { name: string; generation: number; resourceSliceCount: number };
    devices: { name: string; attributes?: Record<string, unknown>; capacity?: Record<string, unknown> }[];
    sharedCounters?: { name: string; counters: Record<string, { value: string }> }[];
  };
}

const gpu = (i: number, extra: Partial<SliceDevice> = {}): SliceDevice => ({
  name: `gpu-${i}`,
  attributes: { index: i, healthy: true, model: 'A100', driverVersion: { version: '550.54.15' } },
  capacity: { memory: '40Gi' },
  pciBusId: `0000:${(0x3b + i).toString(16)}:00.0`,
  pcieRoot: 'pci0000:3a',
  ...extra,
});
const vfs = (n: number, from = 0): SliceDevice[] =>
  Array.from({ length: n }, (_, i) => ({ name: `vf-${from + i}`, attributes: { vf: from + i } }));

let api: ApiServer;
let publisher: SlicePublisher | undefined;
let events: SlicePublisherEvent[];
let listeners: (() => void)[];

beforeEach(async () => {
  api = await createApiServer({ nodes: [NODE, 'node-b'] });
  events = [];
  listeners = [];
  publisher = undefined;
});

afterEach(async () => {
  await publisher?.stop();
  await api.close();
});

function start(pools: SlicePools | undefined, extra: Record<string, unknown> = {}): SlicePublisher {
  publisher = createSlicePublisher({
    access: { server: api.url },
    driverName: DRIVER,
    nodeName: NODE,
    ...(pools === undefined ? {} : { pools }),
    debounceMs: 20,
    backoff: (attempt) => Math.min(200, 10 * attempt),
    onEvent: (event) => {
      events.push(event);
      for (const listener of [...listeners]) listener();
    },
    ...extra,
  });
  publisher.start();
  return publisher;
}

/** Resolves with the first event (already seen or later) that matches. */
function waitForEvent(
  match: (event: SlicePublisherEvent) => boolean,
  after = 0,
): Promise<SlicePublisherEvent> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const found = events.slice(after).find(match);
      if (found === undefined) return false;
      listeners = listeners.filter((l) => l !== listener);
      clearTimeout(timer);
      resolve(found);
      return true;
    };
    const listener = (): void => void check();
    const timer = setTimeout(() => {
      listeners = listeners.filter((l) => l !== listener);
      reject(new Error(`no matching event; got ${JSON.stringify(events)}`));
    }, WAIT_MS);
    if (!check()) listeners.push(listener);
  });
}

const slices = (pool?: string): Slice[] =>
  (
    api.store.list('resourceslices', { fieldSelector: `spec.nodeName=${NODE},spec.driver=${DRIVER}` })
      .items as Slice[]
  )
    .filter((s) => pool === undefined || s.spec.pool.name === pool)
    .sort((a, b) => compareDeviceNames(a.spec.devices?.[0]?.name ?? '', b.spec.devices?.[0]?.name ?? ''));

const writes = (): string[] => api.requests.filter((r) => !r.startsWith('GET'));
const versions = (list: Slice[]): string[] => list.map((s) => s.metadata.resourceVersion ?? '');

describe('createSlicePublisher', () => {
  it('publishes a pool as one slice: driver, node, generation 1, count, owner Node, standard PCI attributes', async () => {
    // Slices of another driver on this node and of this driver on another node are not ours.
    api.store.create('resourceslices', {
      metadata: { name: 'other-driver' },
      spec: {
        driver: 'usb.kdp.dev',
        nodeName: NODE,
        pool: { name: 'x', generation: 1, resourceSliceCount: 1 },
      },
    });
    api.store.create('resourceslices', {
      metadata: { name: 'other-node' },
      spec: { driver: DRIVER, nodeName: 'node-b', pool: { name: 'x', generation: 1, resourceSliceCount: 1 } },
    });
    await start({ gpu: [gpu(1), gpu(0)] }).synced();

    const [slice, ...rest] = slices();
    expect(rest).toEqual([]);
    expect(slice?.metadata.name).toMatch(/^node-a-gpu\.kdp\.dev-[a-z0-9]{5}$/);
    expect(slice?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: NODE,
        uid: api.store.get('nodes', NODE).metadata.uid,
        controller: true,
      },
    ]);
    expect(slice?.spec).toEqual({
      driver: DRIVER,
      nodeName: NODE,
      pool: { name: 'gpu', generation: 1, resourceSliceCount: 1 },
      devices: [0, 1].map((i) => ({
        name: `gpu-${i}`,
        attributes: {
          driverVersion: { version: '550.54.15' },
          healthy: { bool: true },
          index: { int: i },
          model: { string: 'A100' },
          'resource.kubernetes.io/pciBusID': { string: `0000:${(0x3b + i).toString(16)}:00.0` },
          'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
        },
        capacity: { memory: { value: '40Gi' } },
      })),
    });
    expect(events).toEqual([
      { type: 'published', pool: 'gpu', generation: 1, created: 1, updated: 0, deleted: 0 },
    ]);
    expect(api.store.get('resourceslices', 'other-driver')).toBeDefined();
    expect(api.store.get('resourceslices', 'other-node')).toBeDefined();
  });

  it('splits 300 devices into 128 + 128 + 44, sorted by name, resourceSliceCount 3', async () => {
    await start({ vfs: vfs(300) }).synced();
    const list = slices('vfs');
    expect(list.map((s) => s.spec.devices.length)).toEqual([128, 128, 44]);
    expect(list.map((s) => s.spec.pool)).toEqual(
      Array.from({ length: 3 }, () => ({ name: 'vfs', generation: 1, resourceSliceCount: 3 })),
    );
    expect(list.map((s) => [s.spec.devices[0]?.name, s.spec.devices.at(-1)?.name])).toEqual([
      ['vf-0', 'vf-127'],
      ['vf-128', 'vf-255'],
      ['vf-256', 'vf-299'],
    ]);
  });

  it('bumps the generation of a changed pool, rewrites its slices and leaves other pools alone', async () => {
    const p = start({ gpu: [gpu(0), gpu(1)], vfs: vfs(300) });
    await p.synced();
    const before = versions(slices('vfs'));
    const writesBefore = writes().length;

    p.update({ gpu: [gpu(0), gpu(1, { attributes: { model: 'H100' } })], vfs: vfs(300) });
    await p.synced();
    expect(slices('gpu').map((s) => s.spec.pool.generation)).toEqual([2]);
    expect(slices('gpu')[0]?.spec.devices[1]?.attributes).toMatchObject({ model: { string: 'H100' } });
    expect(versions(slices('vfs'))).toEqual(before);
    expect(writes().length - writesBefore).toBe(1);

    // One device of the 300 changes: generation 2 on all three slices (a consistent pool), content only in one.
    const changed = vfs(300).map((d) => (d.name === 'vf-130' ? { ...d, attributes: { vf: -1 } } : d));
    p.update({ gpu: [gpu(0), gpu(1, { attributes: { model: 'H100' } })], vfs: changed });
    await p.synced();
    const list = slices('vfs');
    expect(list.map((s) => s.spec.pool.generation)).toEqual([2, 2, 2]);
    expect(list[1]?.spec.devices[2]).toEqual({ name: 'vf-130', attributes: { vf: { int: -1 } } });
    expect(events.at(-1)).toEqual({
      type: 'published',
      pool: 'vfs',
      generation: 2,
      created: 0,
      updated: 3,
      deleted: 0,
    });
  });

  it('with keepGenerationForSingleUpdate updates only the changed slice and keeps the generation', async () => {
    const p = start({ vfs: vfs(300) }, { keepGenerationForSingleUpdate: true });
    await p.synced();
    const before = versions(slices('vfs'));
    p.update({ vfs: vfs(300).map((d) => (d.name === 'vf-5' ? { ...d, attributes: { vf: 99 } } : d)) });
    await p.synced();
    const after = slices('vfs');
    expect(after.map((s) => s.spec.pool.generation)).toEqual([1, 1, 1]);
    expect(versions(after)[0]).not.toBe(before[0]);
    expect(versions(after).slice(1)).toEqual(before.slice(1));
    expect(after[0]?.spec.devices[5]?.attributes).toEqual({ vf: { int: 99 } });
  });

  it('removes devices, shrinks the pool and deletes the slices of a pool that is gone', async () => {
    const p = start({ gpu: [gpu(0)], vfs: vfs(300) });
    await p.synced();
    p.update({ gpu: [gpu(0)], vfs: vfs(200) });
    await p.synced();
    const list = slices('vfs');
    expect(list.map((s) => s.spec.devices.length)).toEqual([128, 72]);
    expect(list.map((s) => s.spec.pool)).toEqual(
      Array.from({ length: 2 }, () => ({ name: 'vfs', generation: 2, resourceSliceCount: 2 })),
    );
    expect(events.at(-1)).toMatchObject({ pool: 'vfs', updated: 2, deleted: 1, created: 0 });

    p.update({ vfs: vfs(200) });
    await p.synced();
    expect(slices('gpu')).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'removed', pool: 'gpu', deleted: 1 });
  });

  it('coalesces a burst of updates into one publication', async () => {
    const p = start({ vfs: vfs(3) });
    await p.synced();
    for (let i = 4; i <= 10; i++) p.update({ vfs: vfs(i) });
    await p.synced();
    expect(slices('vfs')[0]?.spec.devices.length).toBe(10);
    expect(
      events.filter((e) => e.type === 'published').map((e) => 'generation' in e && e.generation),
    ).toEqual([1, 2]);
  });

  it('republishes after the kubelet deletes the node slices (deletecollection), with a higher generation', async () => {
    const p = start({ vfs: vfs(300) });
    await p.synced();
    const mark = events.length;
    const res = await fetch(
      `${api.url}/apis/resource.k8s.io/v1/resourceslices?fieldSelector=${encodeURIComponent(`spec.nodeName=${NODE}`)}`,
      { method: 'DELETE' },
    );
    expect(res.status).toBe(200);
    expect(await waitForEvent((e) => e.type === 'published', mark)).toEqual({
      type: 'published',
      pool: 'vfs',
      generation: 2,
      created: 3,
      updated: 0,
      deleted: 0,
    });
    expect(slices('vfs').map((s) => s.spec.devices.length)).toEqual([128, 128, 44]);
  });

  it('falls back to listing again when the watch is refused', async () => {
    await api.close();
    api = await createApiServer({ nodes: [NODE], authorize: (a) => a.verb !== 'watch' });
    const p = start({ vfs: vfs(3) });
    await p.synced();
    const mark = events.length;
    api.store.deleteCollection('resourceslices', {});
    await waitForEvent((e) => e.type === 'published', mark);
    expect(slices('vfs')).toHaveLength(1);
  });

  it('lists again and retries when another writer changed a slice (409)', async () => {
    let raced = false;
    await api.close();
    api = await createApiServer({
      nodes: [NODE],
      authorize: (a) => {
        if (a.verb === 'update' && a.resource === 'resourceslices' && !raced && a.name !== undefined) {
          raced = true;
          api.store.patch('resourceslices', a.name, { metadata: { labels: { touched: 'yes' } } });
        }
        return true;
      },
    });
    const p = start({ gpu: [gpu(0)] });
    await p.synced();
    p.update({ gpu: [gpu(0, { attributes: { model: 'H100' } })] });
    await p.synced();
    expect(raced).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['published', 'conflict', 'published']);
    const [slice] = slices('gpu');
    expect(slice?.metadata.labels).toEqual({ touched: 'yes' });
    expect(slice?.spec.pool.generation).toBe(2);
    expect(slice?.spec.devices[0]?.attributes).toMatchObject({ model: { string: 'H100' } });
  });

  it('lists again and deletes a removed pool whose slice another writer changed (delete precondition 409)', async () => {
    let raced = false;
    await api.close();
    api = await createApiServer({
      nodes: [NODE],
      authorize: (a) => {
        if (a.verb === 'delete' && !raced && a.name !== undefined) {
          raced = true;
          api.store.patch('resourceslices', a.name, { metadata: { labels: { touched: 'yes' } } });
        }
        return true;
      },
    });
    const p = start({ gpu: [gpu(0)], vfs: vfs(2) });
    await p.synced();
    p.update({ vfs: vfs(2) });
    await p.synced();
    expect(events.map((e) => e.type)).toEqual(['published', 'published', 'conflict', 'removed']);
    expect(slices('gpu')).toEqual([]);
  });

  it('reports a 422 once with its causes and does not retry the same content', async () => {
    const long = 'x'.repeat(65);
    const p = start({ bad: [gpu(0, { attributes: { model: long } })], good: [gpu(1)] });
    await p.synced();
    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ pool: 'bad' });
    expect(rejected[0]?.type === 'rejected' && rejected[0].causes.map((c) => c.field)).toEqual([
      'spec.devices[0].attributes[model].string',
    ]);
    expect(slices('good')).toHaveLength(1);

    // The same content again, then someone empties the good slice: the good pool is repaired (so that
    // reconcile ran after the watch event), the bad one is not written again.
    const before = writes().length;
    p.update({ bad: [gpu(0, { attributes: { model: long } })], good: [gpu(1)] });
    await p.synced();
    expect(writes().length).toBe(before);
    const mark = events.length;
    api.store.patch('resourceslices', slices('good')[0]?.metadata.name ?? '', { spec: { devices: [] } });
    await waitForEvent((e) => e.type === 'published' && e.pool === 'good', mark);
    await p.synced();
    expect(writes().slice(before)).toEqual([expect.stringMatching(/^PUT /)]);
    expect(events.filter((e) => e.type === 'rejected')).toHaveLength(1);

    p.update({ bad: [gpu(0, { attributes: { model: 'ok' } })], good: [gpu(1)] });
    await p.synced();
    expect(slices('bad')).toHaveLength(1);
  });
});

describe('createSlicePublisher lifecycle', () => {
  it('writes nothing when a restarted publisher finds its slices as they should be', async () => {
    const first = start({ vfs: vfs(300), gpu: [gpu(0)] });
    await first.synced();
    await first.stop();
    const before = writes().length;
    const second = start({ vfs: vfs(300), gpu: [gpu(0)] });
    await second.synced();
    expect(writes().length).toBe(before);
    expect(slices().map((s) => s.spec.pool.generation)).toEqual([1, 1, 1, 1]);
  });

  it('writes nothing before it is given pools: slices of a previous run stay', async () => {
    const first = start({ vfs: vfs(3) });
    await first.synced();
    await first.stop();
    const before = writes().length;
    const second = start(undefined);
    await second.synced();
    expect(writes().length).toBe(before);
    second.update({ vfs: vfs(4) });
    await second.synced();
    expect(slices('vfs')[0]?.spec).toMatchObject({ pool: { generation: 2 } });
  });

  it('retries with backoff while the Node does not exist, then owns the slices by its uid', async () => {
    await api.close();
    api = await createApiServer({});
    const p = start({ vfs: vfs(2) });
    const error = await waitForEvent((e) => e.type === 'error');
    expect(error).toMatchObject({ attempt: 1, message: expect.stringContaining('404') });
    const node = api.store.create('nodes', { metadata: { name: NODE } });
    await p.synced();
    expect(slices('vfs')[0]?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Node', uid: node.metadata.uid }),
    ]);
  });

  it('leaves the slices on stop by default and deletes them with deleteOnStop', async () => {
    const p = start({ vfs: vfs(200) });
    await p.synced();
    await p.stop();
    expect(slices('vfs')).toHaveLength(2);
    const q = start({ vfs: vfs(200) }, { deleteOnStop: true });
    await q.synced();
    await q.stop();
    expect(slices()).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'removed', pool: 'vfs', deleted: 2 });
  });

  it('refuses a duplicate device name and a slice size over 128', () => {
    const p = start(undefined);
    expect(() => p.update({ vfs: [...vfs(2), ...vfs(1)] })).toThrow('pool vfs: device vf-0 is listed twice');
    expect(() =>
      createSlicePublisher({
        access: { server: api.url },
        driverName: DRIVER,
        nodeName: NODE,
        maxDevicesPerSlice: 129,
      }),
    ).toThrow(RangeError);
  });
});

describe('createSlicePublisher with counters (KEP 4815, Kubernetes 1.35 layout)', () => {
  /** GPU `g`'s counter set: 8 compute slices, 4 memory slices. */
  const counterSet = (g: number): SliceCounterSet => ({ name: `gpu-${g}`, counters: { xcp: 8, memory: 4 } });
  /** GPU `g` whole and its 8 partitions, each consuming its share of the GPU's counter set. */
  const partitioned = (g: number): SliceDevice[] => [
    { name: `gpu-${g}`, consumesCounters: [{ counterSet: `gpu-${g}`, counters: { xcp: 8, memory: 4 } }] },
    ...Array.from({ length: 8 }, (_, p) => ({
      name: `gpu-${g}-xcp-${p}`,
      consumesCounters: [{ counterSet: `gpu-${g}`, counters: { xcp: 1, memory: '500m' } }],
    })),
  ];
  const pool = (gpus: number): SlicePool => ({
    devices: Array.from({ length: gpus }, (_, g) => partitioned(g)).flat(),
    sharedCounters: Array.from({ length: gpus }, (_, g) => counterSet(g)),
  });
  const counterSlices = (list: Slice[]): Slice[] => list.filter((s) => s.spec.sharedCounters !== undefined);
  const deviceSlices = (list: Slice[]): Slice[] => list.filter((s) => s.spec.devices !== undefined);

  it('writes counter sets in slices of their own, 8 sets each, and devices with counters 64 a slice, all counted in one pool', async () => {
    // 10 GPUs: 90 devices (64 + 26) and 10 counter sets (8 + 2): 4 slices, resourceSliceCount 4.
    await start({ amd: pool(10) }).synced();
    const list = slices('amd');
    expect(list).toHaveLength(4);
    expect(list.map((s) => s.spec.pool)).toEqual(
      Array.from({ length: 4 }, () => ({ name: 'amd', generation: 1, resourceSliceCount: 4 })),
    );
    expect(deviceSlices(list).map((s) => s.spec.devices.length)).toEqual([64, 26]);
    expect(deviceSlices(list).every((s) => s.spec.sharedCounters === undefined)).toBe(true);
    const sets = counterSlices(list).map((s) => s.spec.sharedCounters?.map((c) => c.name));
    expect(sets.sort((a, b) => (a?.length ?? 0) - (b?.length ?? 0))).toEqual([
      ['gpu-8', 'gpu-9'],
      ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3', 'gpu-4', 'gpu-5', 'gpu-6', 'gpu-7'],
    ]);
    expect(counterSlices(list).every((s) => s.spec.devices === undefined)).toBe(true);
    expect(counterSlices(list)[0]?.spec.sharedCounters?.[0]?.counters).toEqual({
      memory: { value: '4' },
      xcp: { value: '8' },
    });
    expect(deviceSlices(list)[0]?.spec.devices[1]).toEqual({
      name: 'gpu-0-xcp-0',
      consumesCounters: [
        { counterSet: 'gpu-0', counters: { memory: { value: '500m' }, xcp: { value: '1' } } },
      ],
    });
  });

  it('gives the same slices for the same model: a restarted publisher writes nothing, a changed counter set bumps the pool', async () => {
    const first = start({ amd: pool(10) });
    await first.synced();
    await first.stop();
    const before = writes().length;
    // The same model, the counter sets listed in another order.
    const same = pool(10);
    const second = start({ amd: { ...same, sharedCounters: [...(same.sharedCounters ?? [])].reverse() } });
    await second.synced();
    expect(writes().length).toBe(before);
    second.update({
      amd: {
        ...same,
        sharedCounters: [
          { name: 'gpu-0', counters: { xcp: 4, memory: 4 } },
          ...(same.sharedCounters ?? []).slice(1),
        ],
      },
    });
    await waitForEvent((e) => e.type === 'published' && e.generation === 2);
    expect(slices('amd').map((s) => s.spec.pool.generation)).toEqual([2, 2, 2, 2]);
  });

  it('refuses counters the API does not allow: an unknown set or counter, 3 sets per device, 33 counters, a set twice', () => {
    const p = start(undefined);
    const device = (uses: SliceDevice['consumesCounters']): SliceDevice => ({
      name: 'd',
      consumesCounters: uses,
    });
    const sets = [counterSet(0), counterSet(1), counterSet(2)];
    expect(() =>
      p.update({
        a: { devices: [device([{ counterSet: 'x', counters: { xcp: 1 } }])], sharedCounters: sets },
      }),
    ).toThrow('pool a: device d consumes from counter set x, which the pool lacks');
    expect(() =>
      p.update({
        a: { devices: [device([{ counterSet: 'gpu-0', counters: { cu: 1 } }])], sharedCounters: sets },
      }),
    ).toThrow('device d consumes counter cu, which counter set gpu-0 lacks');
    expect(() =>
      p.update({
        a: {
          devices: [device(sets.map((s) => ({ counterSet: s.name, counters: { xcp: 1 } })))],
          sharedCounters: sets,
        },
      }),
    ).toThrow('device d consumes from 3 counter sets, more than 2');
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, 1]));
    expect(() => p.update({ a: { devices: [], sharedCounters: [{ name: 'big', counters: many }] } })).toThrow(
      'counter set big has 33 counters, more than 32',
    );
    expect(() => p.update({ a: { devices: [], sharedCounters: [counterSet(0), counterSet(0)] } })).toThrow(
      'counter set gpu-0 is listed twice',
    );
    expect(() => p.update({ a: [device([{ counterSet: 'gpu-0', counters: { xcp: 1 } }])] })).toThrow(
      'which the pool lacks',
    );
  });
});
