import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, type ApiServer } from '../api-server/api-server';
import type { KubeObject, ObjectStore } from '../api-server/object-store';
import { createFakeDraDriver, type FakeDraDriver, type PrepareAnswer } from '../dra/fake-dra-driver.fixture';
import { getPodResources } from '../dra/pod-resources-get.fixture';
import { createKubeletSim } from '../kubelet-sim';
import type { KubeletSim } from '../kubelet-sim-types';
import type { ContainerDevices } from './container-devices';
import { createNodeKubelet, type NodeKubelet } from './node-kubelet';
import type { PodObject } from './pod-object';
import { ContainerDevicesAnnotation } from './pod-writes';

const node = 'node-a';
const driverName = 'gpu.example.com';

/** Resolves with the first object of `resource` that `predicate` accepts (now or after a change). */
function until(
  store: ObjectStore,
  resource: string,
  predicate: (o: KubeObject) => boolean,
  timeoutMs = 15_000,
): Promise<KubeObject> {
  return new Promise((resolve, reject) => {
    let stop: () => void = () => undefined;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${resource} matched within ${timeoutMs} ms`));
    }, timeoutMs);
    stop = store.watch(resource, {}, (event) => {
      const object = event.object as KubeObject;
      if (event.type === 'DELETED' || event.type === 'ERROR' || !predicate(object)) return;
      clearTimeout(timer);
      queueMicrotask(() => stop());
      resolve(object);
    });
  });
}

describe('the playground kubelet of a node', () => {
  let root: string;
  let cdiDir: string;
  let devRoot: string;
  let api: ApiServer;
  let sim: KubeletSim;
  let kubelet: NodeKubelet;
  let driver: FakeDraDriver;

  /** The fake driver's prepare: each allocated device with its request, one CDI spec per claim. */
  const prepareFromAllocation: PrepareAnswer = (request) => ({
    claims: Object.fromEntries(
      request.claims.map((c) => {
        const claim = api.store.get('resourceclaims', c.name, c.namespace);
        const { results } = (
          claim['status'] as {
            allocation: { devices: { results: Array<{ request: string; device: string }> } };
          }
        ).allocation.devices;
        writeFileSync(
          join(cdiDir, `claim-${c.uid}.json`),
          JSON.stringify({
            cdiVersion: '0.6.0',
            kind: 'example.com/gpu',
            devices: results.map((r) => ({
              name: `${c.uid}-${r.device}`,
              containerEdits: {
                env: [`GPU_${r.device.replace('-', '_')}=1`],
                deviceNodes: [{ path: `/dev/${r.device}` }],
              },
            })),
          }),
        );
        return [
          c.uid,
          {
            error: '',
            devices: results.map((r) => ({
              requestNames: [r.request],
              poolName: node,
              deviceName: r.device,
              cdiDeviceIds: [`example.com/gpu=${c.uid}-${r.device}`],
            })),
          },
        ];
      }),
    ),
  });

  /** A pod with `containers`, bound after its claim `claim` is allocated `results` and reserved for it (as the scheduler does). */
  const scheduledPod = (
    name: string,
    claim: string,
    results: Array<{ request: string; device: string }>,
    containers: NonNullable<PodObject['spec']>['containers'],
  ): PodObject => {
    const pod = api.store.create(
      'pods',
      {
        metadata: { name },
        spec: {
          resourceClaims: [{ name: 'gpus', resourceClaimName: claim }],
          containers: containers?.map((c) => ({ image: 'registry.k8s.io/pause:3.10', ...c })),
        },
      },
      'default',
    ) as PodObject;
    let current: KubeObject;
    try {
      current = api.store.get('resourceclaims', claim, 'default');
    } catch {
      current = api.store.create(
        'resourceclaims',
        { metadata: { name: claim }, spec: { devices: { requests: [] } } },
        'default',
      );
      current = api.store.update(
        'resourceclaims',
        {
          ...current,
          status: {
            allocation: {
              devices: { results: results.map((r) => ({ ...r, driver: driverName, pool: node })) },
            },
          },
        },
        { namespace: 'default', subresource: 'status' },
      );
    }
    const status = (current['status'] ?? {}) as { reservedFor?: unknown[] };
    api.store.update(
      'resourceclaims',
      {
        ...current,
        status: {
          ...status,
          reservedFor: [...(status.reservedFor ?? []), { resource: 'pods', name, uid: pod.metadata.uid }],
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
    return api.store.update(
      'pods',
      { ...pod, spec: { ...pod.spec, nodeName: node } },
      { namespace: 'default' },
    ) as PodObject;
  };
  const podNamed = (name: string, phase: string): Promise<KubeObject> =>
    until(api.store, 'pods', (p) => p.metadata.name === name && (p as PodObject).status?.phase === phase);
  const devicesOf = (pod: KubeObject): ContainerDevices[] =>
    JSON.parse(
      (pod.metadata['annotations'] as Record<string, string>)[ContainerDevicesAnnotation] ?? '[]',
    ) as ContainerDevices[];

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-pg-'));
    cdiDir = join(root, 'cdi');
    devRoot = join(root, 'dev');
    for (const dir of [cdiDir, devRoot]) mkdirSync(dir, { recursive: true });
    for (const dev of ['dev-0', 'dev-1', 'dev-2']) writeFileSync(join(devRoot, dev), '');
    api = await createApiServer({ nodes: [node] });
    sim = await createKubeletSim({
      dir: join(root, 'dp'),
      podResourcesSocket: join(root, 'pod-resources', 'kubelet.sock'),
      dra: {
        pluginsRegistryDir: join(root, 'registry'),
        apiServer: { url: api.url },
        nodeName: node,
        podSyncRetryMs: 50,
        podSyncMaxRetryMs: 200,
      },
    });
    const connected = sim.waitFor('dra-connection', (e) => e.driver === driverName && e.connected);
    driver = await createFakeDraDriver({
      registryDir: join(root, 'registry'),
      pluginDir: join(root, 'plugin'),
      driver: driverName,
      prepare: prepareFromAllocation,
    });
    await connected;
    kubelet = createNodeKubelet({
      store: api.store,
      sim,
      nodeName: node,
      cdiDir,
      devRoot,
      retryMs: 50,
      maxRetryMs: 200,
    });
  });
  afterEach(async () => {
    kubelet.close();
    await sim.close();
    await driver.stop();
    await api.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a pod, giving each container exactly its request’s devices, device nodes and env', async () => {
    scheduledPod(
      'p1',
      'c1',
      [
        { request: 'a', device: 'dev-0' },
        { request: 'b', device: 'dev-1' },
        { request: 'b', device: 'dev-2' },
      ],
      [
        { name: 'first', resources: { claims: [{ name: 'gpus', request: 'a' }] } },
        { name: 'second', resources: { claims: [{ name: 'gpus', request: 'b' }] } },
        { name: 'all', resources: { claims: [{ name: 'gpus' }] } },
        { name: 'none' },
      ],
    );
    const pod = (await podNamed('p1', 'Running')) as PodObject;
    const uid = (api.store.get('resourceclaims', 'c1', 'default').metadata.uid ?? '') as string;
    const byName = new Map(devicesOf(pod).map((c) => [c.name, c]));
    expect(byName.get('first')).toEqual({
      name: 'first',
      claims: [{ name: 'gpus', request: 'a', resourceClaimName: 'c1' }],
      cdiDevices: [`example.com/gpu=${uid}-dev-0`],
      deviceNodes: [{ path: '/dev/dev-0', hostPath: '/dev/dev-0' }],
      mounts: [],
      env: ['GPU_dev_0=1'],
    });
    expect(byName.get('second')?.env).toEqual(['GPU_dev_1=1', 'GPU_dev_2=1']);
    expect(byName.get('second')?.deviceNodes.map((d) => d.path)).toEqual(['/dev/dev-1', '/dev/dev-2']);
    expect(byName.get('all')?.cdiDevices).toHaveLength(3);
    expect(byName.get('none')).toMatchObject({ claims: [], cdiDevices: [], env: [] });
    expect(pod.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['PodReadyToStartContainers', 'True'],
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ]);
    expect(kubelet.containerDevices('default', 'p1')).toEqual(devicesOf(pod));

    const podResources = await getPodResources(join(root, 'pod-resources', 'kubelet.sock'), 'p1');
    const dynamic = new Map(podResources?.containers.map((c) => [c.name, c.dynamicResources]));
    expect(
      dynamic.get('first')?.map((d) => [d.claimName, d.claimResources.map((r) => r.deviceName)]),
    ).toEqual([['c1', ['dev-0', 'dev-1', 'dev-2']]]);
    expect(dynamic.get('none')).toEqual([]);
  });

  it('keeps the pod Pending with the kubelet’s Warning Event while prepare fails, and runs it once prepare works', async () => {
    driver.prepareAnswer = () => new Error('GPU is busy');
    const failures: number[] = [];
    const fourFailures = new Promise<void>((resolve) =>
      sim.events.on('dra-prepare-failed', (e: { at: number }) => {
        if (failures.push(e.at) === 4) resolve();
      }),
    );
    scheduledPod(
      'p1',
      'c1',
      [{ request: 'a', device: 'dev-0' }],
      [{ name: 'main', resources: { claims: [{ name: 'gpus' }] } }],
    );
    const event = await until(api.store, 'events', (e) => e['reason'] === 'FailedPrepareDynamicResources');
    expect(event).toMatchObject({
      type: 'Warning',
      involvedObject: { kind: 'Pod', name: 'p1' },
      message: expect.stringMatching(
        /^Failed to prepare dynamic resources: NodePrepareResources: .*GPU is busy/,
      ),
    });
    expect((api.store.get('pods', 'p1', 'default') as PodObject).status?.phase).toBe('Pending');
    await until(
      api.store,
      'events',
      (e) => e['reason'] === 'FailedPrepareDynamicResources' && Number(e['count']) >= 2,
    );
    // The retries back off: 50 ms, 100 ms, then the 200 ms cap.
    await fourFailures;
    const gaps = failures.slice(1).map((at, i) => at - (failures[i] ?? 0));
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(190);
    driver.prepareAnswer = prepareFromAllocation;
    await podNamed('p1', 'Running');
  });

  it('reports a container whose CDI device node is missing, and creates it once the node exists', async () => {
    scheduledPod(
      'p1',
      'c1',
      [{ request: 'a', device: 'dev-9' }],
      [{ name: 'main', resources: { claims: [{ name: 'gpus', request: 'a' }] } }],
    );
    const event = await until(api.store, 'events', (e) => e['reason'] === 'Failed');
    expect(event['message']).toMatch(/failed to stat CDI host device "\/dev\/dev-9"/);
    const waiting = (p: KubeObject): unknown =>
      (
        (p as PodObject).status?.['containerStatuses'] as Array<{ state: { waiting?: unknown } }> | undefined
      )?.[0]?.state.waiting;
    const pod = (await until(api.store, 'pods', (p) =>
      JSON.stringify(waiting(p)).includes('CreateContainerError'),
    )) as PodObject;
    expect(waiting(pod)).toEqual({
      reason: 'CreateContainerError',
      message: expect.stringMatching(
        /^failed to create containerd container: CDI device injection failed: .*"\/dev\/dev-9"/,
      ),
    });
    expect(pod.status?.phase).toBe('Pending');
    writeFileSync(join(devRoot, 'dev-9'), '');
    await podNamed('p1', 'Running');
  });

  it('reads a template claim’s name from status.resourceClaimStatuses', async () => {
    const pod = scheduledPod(
      'p1',
      'p1-gpus-x',
      [{ request: 'a', device: 'dev-0' }],
      [{ name: 'main', resources: { claims: [{ name: 'gpus' }] } }],
    );
    api.store.update(
      'pods',
      { ...pod, spec: { ...pod.spec, resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 't' }] } },
      { namespace: 'default' },
    );
    // Bound before the claim name is known: the kubelet waits (as upstream, "ResourceClaim not created yet").
    await until(api.store, 'events', (e) => String(e['message']).includes('ResourceClaim not created yet'));
    const current = api.store.get('pods', 'p1', 'default');
    api.store.update(
      'pods',
      {
        ...current,
        status: {
          ...(current['status'] as object),
          resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: 'p1-gpus-x' }],
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
    const running = await podNamed('p1', 'Running');
    expect(devicesOf(running)[0]?.claims).toEqual([{ name: 'gpus', resourceClaimName: 'p1-gpus-x' }]);
  });

  it('keeps its Node registered and Ready, registering it again after a delete', async () => {
    const ready = (n: KubeObject): boolean =>
      n.metadata.name === node &&
      JSON.stringify(n['status'] ?? {}).includes('"type":"Ready","status":"True"');
    expect(ready(api.store.get('nodes', node))).toBe(true);
    const uid = api.store.get('nodes', node).metadata.uid;
    api.store.delete('nodes', node);
    const again = await until(api.store, 'nodes', (n) => ready(n) && n.metadata.uid !== uid);
    expect(again.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': node });
  });

  it('unprepares a claim when the last pod using it on the node is deleted', async () => {
    const containers = [{ name: 'main', resources: { claims: [{ name: 'gpus' }] } }];
    scheduledPod('p1', 'shared', [{ request: 'a', device: 'dev-0' }], containers);
    scheduledPod('p2', 'shared', [], containers);
    await podNamed('p1', 'Running');
    await podNamed('p2', 'Running');
    const unprepares = (): number =>
      driver.calls.filter((c) => c.method.endsWith('NodeUnprepareResources')).length;
    api.store.delete('pods', 'p1', { namespace: 'default' });
    await sim.waitFor('dra-unprepared', (e) => e.pod === 'p1');
    expect(unprepares()).toBe(0);
    api.store.delete('pods', 'p2', { namespace: 'default' });
    expect(await sim.waitFor('dra-unprepared', (e) => e.pod === 'p2')).toMatchObject({
      claims: [{ name: 'shared' }],
    });
    expect(unprepares()).toBe(1);
  });
});
