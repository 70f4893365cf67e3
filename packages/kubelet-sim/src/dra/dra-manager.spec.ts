import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, type ApiServer } from '../api-server/api-server';
import type { KubeObject } from '../api-server/object-store';
import { createKubeletSim } from '../kubelet-sim';
import type { KubeletSim } from '../kubelet-sim-types';
import { createFakeClock, type FakeClock } from '../testing/fake-clock';
import {
  createFakeDraDriver,
  type FakeDraDriver,
  type FakeDraDriverOptions,
  prepareAll,
} from './fake-dra-driver.fixture';
import { getPodResources } from './pod-resources-get.fixture';

const node = 'node-a';
const driverName = 'gpu.example.com';

describe('the DRA manager of kubelet-sim', () => {
  let root: string;
  let registry: string;
  let api: ApiServer;
  let clock: FakeClock;
  let sim: KubeletSim;
  const drivers: FakeDraDriver[] = [];

  const driver = async (options: Partial<FakeDraDriverOptions> = {}): Promise<FakeDraDriver> => {
    const d = await createFakeDraDriver({
      registryDir: registry,
      pluginDir: join(root, 'plugins', String(drivers.length)),
      ...options,
    });
    drivers.push(d);
    return d;
  };
  /** A claim allocated to `driverName` on this node and reserved for the pods given. */
  const claim = (name: string, podUids: readonly string[], drivers = [driverName]): KubeObject => {
    const created = api.store.create(
      'resourceclaims',
      {
        metadata: { name },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
      },
      'default',
    );
    return api.store.update(
      'resourceclaims',
      {
        ...created,
        status: {
          allocation: {
            devices: {
              results: drivers.map((d, i) => ({ request: 'gpu', driver: d, pool: node, device: `dev-${i}` })),
            },
          },
          reservedFor: podUids.map((uid) => ({ resource: 'pods', name: `pod-${uid}`, uid })),
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
  };
  const slice = (name: string, nodeName: string, d = driverName): void => {
    api.store.create('resourceslices', {
      metadata: { name },
      spec: {
        driver: d,
        nodeName,
        pool: { name: nodeName, generation: 1, resourceSliceCount: 1 },
        devices: [{ name: 'dev-0' }],
      },
    });
  };
  const registered = (d = driverName): Promise<unknown> =>
    sim.waitFor('dra-registered', (e) => e.driver === d);
  const connected = (d = driverName): Promise<unknown> =>
    sim.waitFor('dra-connection', (e) => e.driver === d && e.connected);

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-dra-'));
    registry = join(root, 'registry');
    api = await createApiServer({ nodes: [node] });
    clock = createFakeClock(Date.now());
    sim = await createKubeletSim({
      dir: join(root, 'dp'),
      clock,
      podResourcesSocket: join(root, 'pod-resources', 'kubelet.sock'),
      dra: { pluginsRegistryDir: registry, apiServer: { url: api.url }, nodeName: node, podSyncRetryMs: 50 },
    });
  });
  afterEach(async () => {
    await sim.close();
    for (const d of drivers.splice(0)) await d.stop();
    await api.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('registers a DRAPlugin, choosing the first service in the plugin order, and notifies it', async () => {
    const event = sim.waitFor('dra-registered');
    const d = await driver({
      supportedVersions: [
        'v1beta1.DRAPlugin',
        'v1.DRAPlugin',
        'v1alpha1.DRAResourceHealth',
        'v1.DRAResourceHealth',
      ],
    });
    expect(await event).toMatchObject({
      driver: driverName,
      endpoint: d.socketPath,
      service: 'v1beta1.DRAPlugin',
      healthService: 'v1alpha1.DRAResourceHealth',
      socketPath: d.regSocketPath,
    });
    await connected();
    expect(await d.statusesReceived(1)).toEqual([{ pluginRegistered: true, error: '' }]);
    claim('c1', ['u1']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    expect(d.calls.map((c) => c.method)).toEqual(['v1beta1.DRAPlugin/NodePrepareResources']);
  });

  it.each<[string, string[], string]>([
    [
      'no DRAPlugin service',
      ['v1alpha4.Node', 'v1.DRAResourceHealth'],
      'none of services supported by the plugin (["v1alpha4.Node" "v1.DRAResourceHealth"]) are supported by the kubelet (["v1.DRAPlugin" "v1beta1.DRAPlugin"])',
    ],
    ['an empty list', [], 'empty list of supported gRPC services (aka supported versions)'],
  ])('rejects %s with the kubelet message', async (_what, supportedVersions, detail) => {
    const rejected = sim.waitFor('register-rejected');
    const d = await driver({ supportedVersions });
    const message = `invalid supported gRPC versions of DRA driver plugin ${driverName} at endpoint ${d.socketPath}: ${detail}`;
    expect((await rejected).message).toBe(message);
    expect(await d.statusesReceived(1)).toEqual([{ pluginRegistered: false, error: message }]);
    expect(sim.draState().drivers).toEqual([]);
  });

  it('rejects a second registration of the same endpoint and uses the newest of several endpoints', async () => {
    const first = await driver();
    await registered();
    const rejected = sim.waitFor('register-rejected');
    const hijack = await driver({ regSocketName: 'hijack-reg.sock', endpoint: first.socketPath });
    expect((await rejected).message).toBe(
      `endpoint ${first.socketPath} already registered for DRA driver plugin ${driverName}`,
    );
    expect(await hijack.statusesReceived(1)).toEqual([
      { pluginRegistered: false, error: expect.any(String) as unknown },
    ]);
    const newer = sim.waitFor('dra-connection', (e) => e.connected && e.endpoint !== first.socketPath);
    const second = await driver({ regSocketName: `${driverName}-pod2-reg.sock` });
    await newer;
    claim('c1', ['u1']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    expect(first.calls).toEqual([]);
    expect(second.calls.map((c) => c.method)).toEqual(['v1.DRAPlugin/NodePrepareResources']);
    expect(sim.draState().drivers[0]?.endpoints.map((e) => e.endpoint)).toEqual([
      first.socketPath,
      second.socketPath,
    ]);
  });

  it('prepares a pod’s claims in one call per driver and reports the devices', async () => {
    const d = await driver();
    await connected();
    claim('c1', ['u1']);
    claim('c2', ['u1']);
    const prepared = sim.waitFor('dra-prepared');
    const claims = await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1', 'c2']);
    expect(d.calls).toHaveLength(1);
    expect(d.calls[0]?.claims.map((c) => [c.namespace, c.name])).toEqual([
      ['default', 'c1'],
      ['default', 'c2'],
    ]);
    expect(d.calls[0]?.claims.map((c) => c.uid)).toEqual(claims.map((c) => c.uid));
    expect(claims.map((c) => c.devices.map((x) => x.cdiDeviceIds))).toEqual([
      [['example.com/gpu=c1']],
      [['example.com/gpu=c2']],
    ]);
    expect((await prepared).calls).toEqual([{ driver: driverName, claims: ['c1', 'c2'] }]);
    // Prepared claims are not sent again.
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1', 'c2']);
    expect(d.calls).toHaveLength(1);
  });

  it.each<[string, (d: FakeDraDriver) => void, RegExp]>([
    [
      'a gRPC error',
      (d) => (d.prepareAnswer = () => new Error('boom')),
      /^prepare dynamic resources: NodePrepareResources: rpc error: code = Internal desc = boom$/,
    ],
    [
      'a per-claim error',
      (d) =>
        (d.prepareAnswer = (r) => ({
          claims: Object.fromEntries(
            r.claims.map((c) => [c.uid, { devices: [], error: 'not on this node' }]),
          ),
        })),
      /^prepare dynamic resources: NodePrepareResources failed for ResourceClaim c1: not on this node$/,
    ],
    [
      'a missing claim',
      (d) => (d.prepareAnswer = () => ({ claims: {} })),
      /^prepare dynamic resources: NodePrepareResources skipped 1 ResourceClaims$/,
    ],
    [
      'an unknown claim UID',
      (d) => (d.prepareAnswer = () => ({ claims: { 'not-a-claim': { devices: [], error: '' } } })),
      /^prepare dynamic resources: NodePrepareResources returned result for unknown claim UID not-a-claim$/,
    ],
  ])('fails the pod on %s and prepares it on a later sync', async (_what, breakIt, message) => {
    const d = await driver();
    await connected();
    breakIt(d);
    claim('c1', ['u1']);
    const failed = sim.waitFor('dra-prepare-failed');
    await expect(sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1'])).rejects.toThrow(message);
    expect((await failed).message).toMatch(message);
    expect(sim.draState().claims).toMatchObject([{ name: 'c1', podUids: ['u1'], prepared: false }]);
    const prepared = sim.waitFor('dra-prepared', (e) => e.pod === 'p1');
    d.prepareAnswer = prepareAll;
    expect((await prepared).claims).toMatchObject([{ name: 'c1', devices: [{ deviceName: 'dev-c1' }] }]);
    expect(sim.draState().claims).toMatchObject([{ name: 'c1', prepared: true }]);
  });

  it('refuses a claim not reserved for the pod and a driver that is not registered', async () => {
    claim('c1', ['someone-else']);
    await expect(sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1'])).rejects.toThrow(
      /^prepare dynamic resources: pod p1 \(u1\) is not allowed to use ResourceClaim c1 \([0-9a-f-]{36}\)$/,
    );
    claim('c2', ['u2'], ['usb.example.com']);
    await expect(sim.prepareClaims({ name: 'p2', uid: 'u2' }, ['c2'])).rejects.toThrow(
      'prepare dynamic resources: DRA driver usb.example.com is not registered',
    );
    await expect(sim.prepareClaims({ name: 'p3', uid: 'u3' }, ['missing'])).rejects.toThrow(
      'prepare dynamic resources: fetch ResourceClaim missing: resourceclaims.resource.k8s.io "missing" not found',
    );
    expect(sim.draState().claims).toEqual([]);
    await sim.deletePod('p1');
    await sim.deletePod('p2');
    await sim.deletePod('p3');
  });

  it('unprepares a claim only when the last pod using it ends', async () => {
    const d = await driver();
    await connected();
    claim('shared', ['u1', 'u2']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['shared']);
    await sim.prepareClaims({ name: 'p2', uid: 'u2' }, ['shared']);
    expect(d.calls.map((c) => c.method)).toEqual(['v1.DRAPlugin/NodePrepareResources']);
    const first = sim.waitFor('dra-unprepared', (e) => e.pod === 'p1');
    await sim.deletePod('p1');
    expect((await first).claims).toEqual([]);
    expect(d.calls).toHaveLength(1);
    const last = sim.waitFor('dra-unprepared', (e) => e.pod === 'p2');
    await sim.deletePod('p2');
    expect((await last).claims).toMatchObject([{ name: 'shared' }]);
    expect(d.calls.map((c) => c.method)).toEqual([
      'v1.DRAPlugin/NodePrepareResources',
      'v1.DRAPlugin/NodeUnprepareResources',
    ]);
    expect(sim.draState().claims).toEqual([]);
  });

  it('fills dynamic_resources in pod-resources for the containers using a prepared claim', async () => {
    await driver();
    await connected();
    claim('c1', ['u1']);
    await sim.prepareClaims(
      {
        name: 'p1',
        uid: 'u1',
        containers: [
          { name: 'gpu', claims: ['c1'] },
          { name: 'sidecar', claims: [] },
        ],
      },
      ['c1'],
    );
    const podResources = await getPodResources(join(root, 'pod-resources', 'kubelet.sock'), 'p1');
    expect(podResources?.containers.map((c) => [c.name, c.dynamicResources])).toEqual([
      [
        'gpu',
        [
          {
            claimName: 'c1',
            claimNamespace: 'default',
            claimResources: [
              {
                cdiDevices: [{ name: 'example.com/gpu=c1' }],
                driverName,
                poolName: node,
                deviceName: 'dev-c1',
              },
            ],
          },
        ],
      ],
      ['sidecar', []],
    ]);
  });

  it('on restart deletes the node’s slices, reloads its checkpoint and prepares each pod again', async () => {
    const d = await driver();
    await connected();
    claim('c1', ['u1']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    slice('a-gpu', node);
    slice('a-usb', node, 'usb.example.com');
    slice('b-gpu', 'node-b');
    const wiped = sim.waitFor('slices-deleted');
    const again = sim.waitFor('dra-prepared', (e) => e.pod === 'p1');
    await sim.restart();
    expect(await wiped).toMatchObject({ node, reason: 'kubelet-start', count: 2 });
    expect(api.store.list('resourceslices').items.map((s) => s.metadata.name)).toEqual(['b-gpu']);
    expect((await again).claims).toMatchObject([
      { name: 'c1', devices: [{ cdiDeviceIds: ['example.com/gpu=c1'] }] },
    ]);
    expect(d.calls.map((c) => c.method)).toEqual([
      'v1.DRAPlugin/NodePrepareResources',
      'v1.DRAPlugin/NodePrepareResources',
    ]);
    const unprepared = sim.waitFor('dra-unprepared');
    await sim.deletePod('p1');
    expect((await unprepared).claims).toMatchObject([{ name: 'c1' }]);
  });

  it('keeps the checkpoint of a restart from what happens while it is stopped: every pod is prepared again', async () => {
    await driver();
    await connected();
    claim('c1', ['u1']);
    claim('c2', ['u2']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    const again = sim.waitFor('dra-prepared', (e) => e.pod === 'p1');
    const second = sim.waitFor('dra-prepared', (e) => e.pod === 'p2');
    const restarting = sim.restart();
    // A pod given while the manager is stopped must neither drop p1 from the checkpoint nor be lost itself.
    void sim.prepareClaims({ name: 'p2', uid: 'u2' }, ['c2']).catch(() => undefined);
    await restarting;
    expect((await again).claims).toMatchObject([{ name: 'c1' }]);
    expect((await second).claims).toMatchObject([{ name: 'c2' }]);
  });

  /** Replaces the manager of `beforeEach` with one that knows the kubelet's active pods. */
  const withActivePods = async (active: ReadonlySet<string>, reconcilePeriodMs?: number): Promise<void> => {
    await sim.close();
    sim = await createKubeletSim({
      dir: join(root, 'dp'),
      clock,
      dra: {
        pluginsRegistryDir: registry,
        apiServer: { url: api.url },
        nodeName: node,
        podSyncRetryMs: 50,
        activePods: () => active,
        ...(reconcilePeriodMs === undefined ? {} : { reconcilePeriodMs }),
      },
    });
  };
  const unprepares = (d: FakeDraDriver): number =>
    d.calls.filter((c) => c.method === 'v1.DRAPlugin/NodeUnprepareResources').length;

  it('at restart unprepares the claims of a pod deleted while it was down, and prepares the others again', async () => {
    const active = new Set(['u1', 'u2']);
    await withActivePods(active);
    const d = await driver();
    await connected();
    claim('c1', ['u1']);
    claim('c2', ['u2']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    await sim.prepareClaims({ name: 'p2', uid: 'u2' }, ['c2']);
    const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === 'p1');
    const again = sim.waitFor('dra-prepared', (e) => e.pod === 'p2');
    // p1 is deleted while the kubelet is down: no deletion ever reaches the manager, only the active pods change.
    const restarting = sim.restart();
    active.delete('u1');
    await restarting;
    expect((await unprepared).claims).toMatchObject([{ name: 'c1' }]);
    expect((await again).claims).toMatchObject([{ name: 'c2' }]);
    expect(unprepares(d)).toBe(1);
    expect(sim.draState().claims.map((c) => c.name)).toEqual(['c2']);
  });

  it('every reconcile period unprepares the claims of pods no longer active', async () => {
    const active = new Set(['u1']);
    await withActivePods(active, 50);
    const d = await driver();
    await connected();
    claim('c1', ['u1']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === 'p1');
    active.delete('u1');
    expect((await unprepared).claims).toMatchObject([{ name: 'c1' }]);
    expect(unprepares(d)).toBe(1);
    expect(sim.draState().claims).toEqual([]);
  });

  it('deletes a driver’s slices once no endpoint was connected for the wipe delay, not before', async () => {
    const d = await driver();
    await connected();
    slice('a-gpu', node);
    slice('a-usb', node, 'usb.example.com');
    const down = sim.waitFor('dra-connection', (e) => !e.connected);
    await d.stopPluginServer();
    await down;
    clock.advance(29_000);
    expect(api.store.list('resourceslices').items).toHaveLength(2);
    const wiped = sim.waitFor('slices-deleted', (e) => e.reason === 'driver-gone');
    clock.advance(1_000);
    expect(await wiped).toMatchObject({ driver: driverName, count: 1 });
    expect(api.store.list('resourceslices').items.map((s) => s.metadata.name)).toEqual(['a-usb']);
    // Back in time: no wipe.
    slice('a-gpu-2', node);
    const up = connected();
    await d.startPluginServer();
    await up;
    clock.advance(60_000);
    expect(api.store.list('resourceslices').items.map((s) => s.metadata.name)).toEqual(['a-gpu-2', 'a-usb']);
  });

  it('watches health when advertised: a device not refreshed in time becomes Unknown; a stream end clears health and retries', async () => {
    const d = await driver({ supportedVersions: ['v1.DRAPlugin', 'v1.DRAResourceHealth'] });
    const opened = d.nextStream();
    await connected();
    expect(await opened).toBe('v1');
    const update = sim.waitFor('dra-health', (e) => e.reason === 'update');
    d.sendHealth([
      { pool: node, device: 'dev-0', health: 'HEALTHY', at: clock.now(), timeoutSeconds: 10 },
      { pool: node, device: 'dev-1', health: 'UNHEALTHY', at: clock.now() },
    ]);
    expect((await update).devices.map((x) => [x.deviceName, x.health])).toEqual([
      ['dev-0', 'Healthy'],
      ['dev-1', 'Unhealthy'],
    ]);
    const timedOut = sim.waitFor('dra-health', (e) => e.reason === 'timeout');
    clock.advance(11_000);
    expect((await timedOut).devices.map((x) => [x.deviceName, x.health])).toEqual([
      ['dev-0', 'Unknown'],
      ['dev-1', 'Unhealthy'],
    ]);
    expect(sim.draHealth(driverName).map((x) => x.health)).toEqual(['Unknown', 'Unhealthy']);
    const ended = sim.waitFor('dra-health', (e) => e.reason === 'stream-ended');
    const reopened = d.nextStream();
    d.endHealthStreams();
    expect((await ended).devices).toEqual([]);
    expect(sim.draHealth(driverName)).toEqual([]);
    clock.advance(5_000);
    expect(await reopened).toBe('v1');
  });

  it('opens no health stream when the plugin lists no health service', async () => {
    const d = await driver({ supportedVersions: ['v1.DRAPlugin'] });
    const event = await sim.waitFor('dra-registered');
    expect(event).not.toHaveProperty('healthService');
    await connected();
    claim('c1', ['u1']);
    await sim.prepareClaims({ name: 'p1', uid: 'u1' }, ['c1']);
    expect(d.openStreams()).toEqual([]);
  });
});
