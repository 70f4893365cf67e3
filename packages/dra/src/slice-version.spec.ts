import { createFakeResourceApi, type FakeResourceApi } from './resource-api-fake.fixture';
import type { SliceDevice } from './pool-slices';
import { createSlicePublisher, type SlicePublisher, type SlicePublisherEvent } from './slice-publisher';
import { fromVersionSlice, SliceVersionError, toVersionSlice } from './slice-version';
import type { SliceObject } from './slice-object';

const WAIT_MS = 10_000;
const gpu = (i: number): SliceDevice => ({
  name: `gpu-${i}`,
  attributes: { index: i, model: 'A100' },
  capacity: { memory: '40Gi' },
});
const v1Device = {
  name: 'gpu-0',
  attributes: { 'gpu.kdp.dev/index': { int: 0 } },
  capacity: { 'gpu.kdp.dev/memory': { value: '40Gi' } },
};
const slice = (devices: unknown[], spec: Record<string, unknown> = {}): SliceObject => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: 's' },
  spec: { driver: 'gpu.kdp.dev', nodeName: 'n', pool: { name: 'p' }, devices, ...spec },
});

describe('toVersionSlice / fromVersionSlice', () => {
  it('wraps v1beta1 devices in basic and keeps v1 and v1beta2 as they are; reading back gives v1', () => {
    const v1 = slice([v1Device]);
    const beta1 = toVersionSlice(v1, 'v1beta1');
    expect(beta1.apiVersion).toBe('resource.k8s.io/v1beta1');
    expect(beta1.spec.devices).toEqual([
      { name: 'gpu-0', basic: { attributes: v1Device.attributes, capacity: v1Device.capacity } },
    ]);
    expect(fromVersionSlice(beta1, 'v1beta1').spec.devices).toEqual([v1Device]);
    for (const version of ['v1', 'v1beta2'] as const) {
      const written = toVersionSlice(v1, version);
      expect(written.apiVersion).toBe(`resource.k8s.io/${version}`);
      expect(written.spec.devices).toEqual([v1Device]);
      expect(fromVersionSlice(written, version).spec.devices).toEqual([v1Device]);
    }
  });

  it('refuses, naming it, a field the version lacks in its oldest Kubernetes instead of dropping it', () => {
    const counters = { ...v1Device, consumesCounters: [{ counterSet: 'mem', counters: {} }] };
    expect(() => toVersionSlice(slice([counters]), 'v1beta1')).toThrow(
      new SliceVersionError(
        'device gpu-0: consumesCounters is not in resource.k8s.io/v1beta1, the newest resource.k8s.io version ' +
          'the API server serves; upgrade Kubernetes or publish without it',
      ),
    );
    const shared = slice([], { sharedCounters: [{ name: 'mem', counters: {} }] });
    expect(() => toVersionSlice(shared, 'v1beta1')).toThrow('ResourceSlice spec.sharedCounters is not in');
    const binds = slice([{ ...v1Device, allowMultipleAllocations: true }]);
    expect(() => toVersionSlice(binds, 'v1beta2')).toThrow(
      'device gpu-0: allowMultipleAllocations is not in',
    );
    expect(toVersionSlice(binds, 'v1').spec.devices).toEqual(binds.spec.devices);
  });

  it("refuses counters on v1beta2 (Kubernetes 1.33 wants them beside the devices), writes 1.35's layout on v1", () => {
    const counters = {
      ...v1Device,
      consumesCounters: [{ counterSet: 'mem', counters: { x: { value: '1' } } }],
    };
    expect(() => toVersionSlice(slice([counters]), 'v1beta2')).toThrow(
      new SliceVersionError(
        "device gpu-0: consumesCounters is written in Kubernetes 1.35's layout (counter sets in ResourceSlices of " +
          'their own), which resource.k8s.io/v1beta2 (Kubernetes 1.33) does not take; upgrade Kubernetes or ' +
          'publish without it',
      ),
    );
    const { devices: _none, ...spec } = slice([]).spec;
    const sets = {
      ...slice([]),
      spec: { ...spec, sharedCounters: [{ name: 'mem', counters: { x: { value: '8' } } }] },
    };
    expect(() => toVersionSlice(sets, 'v1beta2')).toThrow(
      "ResourceSlice spec.sharedCounters is written in Kubernetes 1.35's layout",
    );
    // A slice of counter sets gets no devices field: a 1.35 API server takes one of the two only.
    expect(toVersionSlice(sets, 'v1').spec).toEqual(sets.spec);
    expect(toVersionSlice(slice([counters]), 'v1').spec.devices).toEqual([counters]);
  });
});

describe('createSlicePublisher on older API servers', () => {
  let api: FakeResourceApi;
  let publisher: SlicePublisher | undefined;
  let events: SlicePublisherEvent[];
  let lines: string[];

  afterEach(async () => {
    await publisher?.stop();
    await api.close();
  });

  async function start(versions: string[], devices: SliceDevice[]): Promise<void> {
    api = await createFakeResourceApi(versions);
    events = [];
    lines = [];
    const log = (_fields: object, message: string): void => void lines.push(message);
    publisher = createSlicePublisher({
      access: { server: api.url },
      driverName: 'gpu.kdp.dev',
      nodeName: 'node-a',
      pools: { 'node-a': devices },
      debounceMs: 10,
      backoff: (attempt) => Math.min(100, 10 * attempt),
      logger: { debug: log, info: log, warn: log, error: log },
      onEvent: (event) => void events.push(event),
    });
    publisher.start();
    await withTimeout(publisher.synced());
  }

  it.each([
    ['v1beta1', { name: 'gpu-0', basic: { attributes: expect.any(Object), capacity: expect.any(Object) } }],
    ['v1beta2', { name: 'gpu-0', attributes: expect.any(Object), capacity: expect.any(Object) }],
    ['v1', { name: 'gpu-0', attributes: expect.any(Object), capacity: expect.any(Object) }],
  ])(
    'writes the slices of a server serving up to %s in its shape and logs the version',
    async (version, device) => {
      const served = ['v1beta1', 'v1beta2', 'v1'].slice(0, ['v1beta1', 'v1beta2', 'v1'].indexOf(version) + 1);
      await start(served, [gpu(0), gpu(1)]);
      const stored = [...api.slices.values()];
      expect(stored).toHaveLength(1);
      expect(stored[0]?.version).toBe(version);
      const written = stored[0]?.object as { apiVersion: string; spec: { devices: unknown[] } };
      expect(written.apiVersion).toBe(`resource.k8s.io/${version}`);
      expect(written.spec.devices[0]).toEqual(device);
      expect(JSON.stringify(written.spec.devices[1])).toContain('"memory":{"value":"40Gi"}');
      expect(api.requests).toContain(`POST /apis/resource.k8s.io/${version}/resourceslices`);
      expect(lines).toContain(`ResourceSlices of gpu.kdp.dev: resource.k8s.io/${version}`);
      expect(events.filter((e) => e.type === 'published')).toHaveLength(1);
    },
  );

  it('finds its own v1beta1 slices up to date after a restart (no write)', async () => {
    await start(['v1beta1'], [gpu(0)]);
    await publisher?.stop();
    const before = api.requests.length;
    publisher = createSlicePublisher({
      access: { server: api.url },
      driverName: 'gpu.kdp.dev',
      nodeName: 'node-a',
      pools: { 'node-a': [gpu(0)] },
      debounceMs: 10,
    });
    publisher.start();
    await withTimeout(publisher.synced());
    expect(api.requests.slice(before).filter((r) => !r.startsWith('GET'))).toEqual([]);
  });

  it('discovers again when the server answers 404 for the version (downgrade), then writes in the new one', async () => {
    await start(['v1', 'v1beta1'], [gpu(0)]);
    expect([...api.slices.values()][0]?.version).toBe('v1');
    api.versions = ['v1beta1'];
    publisher?.update({ 'node-a': [gpu(0), gpu(1)] });
    await withTimeout(publisher?.synced());
    const stored = [...api.slices.values()];
    expect(stored.map((s) => s.version)).toEqual(['v1beta1']);
    expect((stored[0]?.object as { spec: { devices: unknown[] } }).spec.devices).toHaveLength(2);
    expect(api.requests).toEqual(
      expect.arrayContaining([
        'PUT /apis/resource.k8s.io/v1/resourceslices/node-a-gpu.kdp.dev-1',
        'GET /apis/resource.k8s.io/v1/resourceslices',
        'PUT /apis/resource.k8s.io/v1beta1/resourceslices/node-a-gpu.kdp.dev-1',
      ]),
    );
    expect(api.requests.filter((r) => r === 'GET /apis/resource.k8s.io')).toHaveLength(2);
    expect(lines).toContain(
      'ResourceSlices of gpu.kdp.dev: resource.k8s.io/v1 is gone, now resource.k8s.io/v1beta1',
    );
  });
});

async function withTimeout<T>(promise: Promise<T> | undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${WAIT_MS} ms`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise as Promise<T>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
