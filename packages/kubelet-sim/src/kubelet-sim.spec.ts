import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Metadata, Server, type ServiceError, status } from '@grpc/grpc-js';
import {
  type DevicePluginServer,
  DevicePluginService,
  Healthy,
  RegistrationClient,
  type RegisterRequest,
  v1alpha,
} from '@kdp/api';
import { bindUnix, rpcError, stopServer } from './grpc-util';
import { createKubeletSim } from './kubelet-sim';
import type { KubeletSim } from './kubelet-sim-types';
import { createFakeClock } from './testing/fake-clock';
import {
  createTestPlugin,
  defaultTestDevices,
  type TestPlugin,
  type TestPluginOptions,
} from './testing/test-plugin';

const resource = 'example.com/dev';

function register(dir: string, request: Partial<RegisterRequest>): Promise<ServiceError | undefined> {
  const client = new RegistrationClient(`unix://${join(dir, 'kubelet.sock')}`, credentials.createInsecure());
  return new Promise((resolve) =>
    client.register(
      { version: 'v1beta1', endpoint: 'x.sock', resourceName: resource, options: undefined, ...request },
      new Metadata(),
      { deadline: Date.now() + 20_000 },
      (err) => {
        client.close();
        resolve(err ?? undefined);
      },
    ),
  );
}

describe('createKubeletSim', () => {
  let dir: string;
  let sim: KubeletSim | undefined;
  const plugins: TestPlugin[] = [];

  const start = async (
    options: Omit<Parameters<typeof createKubeletSim>[0], 'dir'> = {},
  ): Promise<KubeletSim> => {
    sim = await createKubeletSim({ dir, ...options });
    return sim;
  };
  const plugin = async (options: Omit<TestPluginOptions, 'dir'> = {}): Promise<TestPlugin> => {
    const p = await createTestPlugin({ dir, ...options });
    plugins.push(p);
    return p;
  };
  /** Starts a plugin and waits until its first device list arrived. */
  const registeredPlugin = async (
    s: KubeletSim,
    options: Omit<TestPluginOptions, 'dir'> = {},
  ): Promise<TestPlugin> => {
    const devices = s.waitFor('devices', (e) => e.resource === (options.resource ?? resource));
    const p = await plugin(options);
    await devices;
    return p;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-'));
  });
  afterEach(async () => {
    for (const p of plugins.splice(0)) await p.stop();
    await sim?.close();
    sim = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  describe('Register', () => {
    it('dials the plugin, asks its options, then opens one ListAndWatch (P-11, P-12, P-16)', async () => {
      const s = await start();
      const registered = s.waitFor('registered');
      const devices = s.waitFor('devices');
      const p = await plugin({ options: { preStartRequired: false, getPreferredAllocationAvailable: true } });
      const event = await registered;
      expect(event).toMatchObject({
        resource,
        endpoint: p.endpoint,
        version: 'v1beta1',
        options: { preStartRequired: false, getPreferredAllocationAvailable: true },
        servingAtRegister: true,
        via: 'register',
      });
      expect(typeof event.at).toBe('number');
      expect((await devices).healthy).toEqual(['dev-0', 'dev-1', 'dev-2', 'dev-3']);
      expect(s.resource(resource)).toMatchObject({
        name: resource,
        registered: true,
        apiVersion: 'v1beta1',
        capacity: 4,
        allocatable: 4,
      });
      expect(s.resources()).toHaveLength(1);
    });

    it('until: resolves now, or once a later list satisfies the predicate; rejects with the last state', async () => {
      const s = await start();
      const p = await registeredPlugin(s);
      expect((await s.until(resource, (state) => state.allocatable === 4)).capacity).toBe(4);
      const later = s.until(resource, (state) => state.unhealthy.includes('dev-2'));
      p.setDevices(defaultTestDevices().map((d) => (d.ID === 'dev-2' ? { ...d, health: 'Unhealthy' } : d)));
      expect((await later).healthy).toEqual(['dev-0', 'dev-1', 'dev-3']);
      await expect(s.until(resource, (state) => state.capacity === 9, 50)).rejects.toThrow(
        `kubelet-sim: ${resource} did not reach the expected state within 50 ms; last: {"name":"${resource}"`,
      );
      await expect(s.until('example.com/none', () => true, 10)).rejects.toThrow('last: null');
    });

    it('rejects an unsupported version with the kubelet message as UNKNOWN (P-7)', async () => {
      const s = await start();
      const rejected = s.waitFor('register-rejected');
      const err = await register(dir, { version: 'v1beta2' });
      expect(err?.code).toBe(status.UNKNOWN);
      expect(err?.details).toBe(
        'requested API version "v1beta2" is not supported by kubelet. Supported version is ["v1beta1"]',
      );
      expect((await rejected).message).toBe(err?.details);
    });

    it.each([
      ['gpu', 'the ResourceName "gpu" is invalid'],
      ['example.kubernetes.io/gpu', 'the ResourceName "example.kubernetes.io/gpu" is invalid'],
      ['Example.com/gpu', 'the ResourceName "Example.com/gpu" is invalid'],
    ])('rejects resource name %s (P-8)', async (name, message) => {
      await start();
      const err = await register(dir, { resourceName: name });
      expect(err?.code).toBe(status.UNKNOWN);
      expect(err?.details).toBe(message);
    });

    it('fails with "failed to dial device plugin" when nothing serves the endpoint (P-11)', async () => {
      await start({ dialTimeoutMs: 300 });
      const err = await register(dir, { endpoint: 'nobody.sock' });
      expect(err?.code).toBe(status.UNKNOWN);
      expect(err?.details).toMatch(/^failed to dial device plugin: /);
    });

    it('fails with "failed to get device plugin options" when the options call fails (P-11)', async () => {
      const s = await start();
      const server = new Server();
      const failing: Partial<DevicePluginServer> = {
        getDevicePluginOptions: (_call, callback) => callback(rpcError(status.INTERNAL, 'boom')),
      };
      server.addService(DevicePluginService, failing as DevicePluginServer);
      await bindUnix(server, join(dir, 'bad.sock'));
      try {
        const err = await register(dir, { endpoint: 'bad.sock' });
        expect(err?.details).toBe(
          'failed to get device plugin options: rpc error: code = Internal desc = boom',
        );
        expect(s.resource(resource)).toBeUndefined();
      } finally {
        await stopServer(server);
      }
    });

    it('notes a plugin that registers before it serves, yet connects like the kubelet once it does (P-11)', async () => {
      const s = await start();
      const registered = s.waitFor('registered', undefined, 20_000);
      await plugin({ serveAfterRegisterMs: 300 });
      expect((await registered).servingAtRegister).toBe(false);
    });

    it('a re-registration replaces the old one (P-9)', async () => {
      const s = await start();
      await registeredPlugin(s, { endpoint: 'a.sock' });
      const again = s.waitFor('registered', (e) => e.endpoint === 'b.sock');
      await plugin({ endpoint: 'b.sock' });
      await again;
      expect(s.resource(resource)?.endpoint).toBe('b.sock');
      expect(s.resources()).toHaveLength(1);
    });

    it('answers a v1alpha Register with UNIMPLEMENTED by default, and accepts it when asked (P-7)', async () => {
      await start();
      const client = new v1alpha.RegistrationClient(
        `unix://${join(dir, 'kubelet.sock')}`,
        credentials.createInsecure(),
      );
      const err = await new Promise<ServiceError | null>((resolve) =>
        client.register({ version: 'v1alpha2', endpoint: 'x.sock', resourceName: resource }, (e) =>
          resolve(e),
        ),
      );
      client.close();
      expect(err?.code).toBe(status.UNIMPLEMENTED);
      await sim?.close();

      const s = await start({ acceptedApis: ['v1beta1', 'v1alpha2'] });
      const registered = s.waitFor('registered');
      await registeredPlugin(s, { api: 'v1alpha2' });
      expect((await registered).version).toBe('v1alpha2');
      expect(s.resource(resource)?.apiVersion).toBe('v1alpha2');
      const admission = await s.admit({ pod: 'p', container: 'c', resource, count: 1 });
      expect(admission.response.envs['TEST_DEVICES']).toBe(admission.deviceIds[0]);
    });

    it('answers a v1beta1 Register with UNIMPLEMENTED when only v1alpha2 is accepted', async () => {
      await start({ acceptedApis: ['v1alpha2'] });
      expect((await register(dir, {}))?.code).toBe(status.UNIMPLEMENTED);
    });
  });

  describe('ListAndWatch and health', () => {
    it('counts only the exact string Healthy as healthy; the last duplicate wins (P-14, P-15)', async () => {
      const s = await start();
      const p = await registeredPlugin(s);
      const next = s.waitFor('devices');
      p.setDevices([
        { ID: 'a', health: 'healthy', topology: undefined },
        { ID: 'b', health: '', topology: undefined },
        { ID: 'c', health: 'Unhealthy', topology: undefined },
        { ID: 'c', health: Healthy, topology: undefined },
      ]);
      const event = await next;
      expect(event.devices).toHaveLength(4);
      expect(s.resource(resource)).toMatchObject({
        healthy: ['c'],
        unhealthy: ['a', 'b'],
        capacity: 3,
        allocatable: 1,
      });
    });

    it('on stream end marks every device unhealthy and drops the resource after the grace period (P-19)', async () => {
      const clock = createFakeClock();
      const s = await start({ clock, gracePeriodMs: 60_000 });
      const p = await registeredPlugin(s, { reregister: 'never' });
      const ended = s.waitFor('stream-ended');
      await p.stop();
      await ended;
      expect(s.resource(resource)).toMatchObject({
        registered: false,
        healthy: [],
        capacity: 4,
        allocatable: 0,
        stoppedAt: clock.now(),
      });
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 1 })).rejects.toThrow(
        `Allocate failed due to no healthy devices present; cannot allocate unhealthy devices ${resource}, which is unexpected`,
      );
      const removed = s.waitFor('resource-removed');
      clock.advance(59_999);
      expect(s.resource(resource)).toBeDefined();
      clock.advance(1);
      expect((await removed).resource).toBe(resource);
      expect(s.resource(resource)).toBeUndefined();
    });
  });

  describe('admit', () => {
    it('asks GetPreferredAllocation, allocates, runs PreStartContainer and emits events (P-26, P-27, P-29)', async () => {
      const s = await start();
      await registeredPlugin(s);
      const allocated = s.waitFor('allocated');
      const preStarted = s.waitFor('pre-started');
      const admission = await s.admit({ pod: 'p', container: 'c', resource, count: 2 });
      expect(admission.deviceIds).toEqual(['dev-0', 'dev-1']);
      expect(admission.response.envs).toEqual({ TEST_DEVICES: 'dev-0,dev-1' });
      expect(await allocated).toMatchObject({
        pod: 'p',
        namespace: 'default',
        container: 'c',
        deviceIds: ['dev-0', 'dev-1'],
      });
      expect((await preStarted).deviceIds).toEqual(['dev-0', 'dev-1']);
      expect(s.resource(resource)?.allocatable).toBe(4);
    });

    it('without GetPreferredAllocation chooses by NUMA: affinity first, then nodes with fewer devices (P-34)', async () => {
      const s = await start();
      await registeredPlugin(s, {
        options: { preStartRequired: false, getPreferredAllocationAvailable: false },
        devices: [
          { ID: 'n0-a', health: Healthy, topology: { nodes: [{ ID: 0 }] } },
          { ID: 'n0-b', health: Healthy, topology: { nodes: [{ ID: 0 }] } },
          { ID: 'n1-a', health: Healthy, topology: { nodes: [{ ID: 1 }] } },
          { ID: 'none', health: Healthy, topology: undefined },
        ],
      });
      // Node 1 has fewer free devices than node 0, so it comes first; no-topology devices come last.
      expect((await s.admit({ pod: 'a', container: 'c', resource, count: 1 })).deviceIds).toEqual(['n1-a']);
      expect(
        (await s.admit({ pod: 'b', container: 'c', resource, count: 1, affinity: [0] })).deviceIds,
      ).toEqual(['n0-a']);
      expect((await s.admit({ pod: 'c', container: 'c', resource, count: 2 })).deviceIds).toEqual([
        'n0-b',
        'none',
      ]);
    });

    it('keeps a container admitted before without a new Allocate, and refuses a changed request (P-25)', async () => {
      const s = await start();
      await registeredPlugin(s);
      const first = await s.admit({ pod: 'p', container: 'c', resource, count: 1 });
      expect(await s.admit({ pod: 'p', container: 'c', resource, count: 1 })).toEqual(first);
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 2 })).rejects.toThrow(
        `pod "default/p" container "c" changed request for resource "${resource}": from 1 to 2`,
      );
    });

    it('refuses with the kubelet pre-check messages (P-24)', async () => {
      const s = await start();
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 1 })).rejects.toThrow(
        `Allocate failed due to cannot allocate unregistered device ${resource}, which is unexpected`,
      );
      await registeredPlugin(s);
      await s.admit({ pod: 'p', container: 'c', resource, count: 3 });
      const failed = s.waitFor('admission-failed');
      await expect(s.admit({ pod: 'q', container: 'c', resource, count: 2 })).rejects.toThrow(
        `Allocate failed due to requested number of devices unavailable for ${resource}. Requested: 2, Available: 1, which is unexpected`,
      );
      expect((await failed).pod).toBe('q');
      s.release('p');
      expect((await s.admit({ pod: 'q', container: 'c', resource, count: 2 })).deviceIds).toHaveLength(2);
    });

    it('fails admission when Allocate returns no container response, and rolls back (P-27, P-30)', async () => {
      const s = await start();
      await registeredPlugin(s, { allocate: 'none' });
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 4 })).rejects.toThrow(
        'Allocate failed due to no containers return in allocation response, which is unexpected',
      );
      s.stallNext('allocate', 10);
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 4 })).rejects.toThrow(
        /no containers return/,
      );
    });

    it('passes a plugin error through and reports a PreStartContainer failure (P-27, P-29)', async () => {
      const s = await start();
      await registeredPlugin(s, { preStart: 'error' });
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 1 })).rejects.toThrow(
        'device plugin PreStartContainer rpc failed with err: rpc error: code = Internal desc = device reset failed',
      );
      await expect(s.startContainer('p', 'c')).rejects.toThrow(/PreStartContainer rpc failed/);
    });

    it('times PreStartContainer out (P-29)', async () => {
      const s = await start({ preStartTimeoutMs: 200 });
      await registeredPlugin(s, { preStart: 'hang' });
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 1 })).rejects.toThrow(
        /PreStartContainer rpc failed with err: rpc error: code = DeadlineExceeded/,
      );
    });

    it('startContainer calls PreStartContainer again with all the container devices (P-29)', async () => {
      const s = await start();
      await registeredPlugin(s);
      await s.admit({ pod: 'p', container: 'c', resource, count: 2 });
      const again = s.waitFor('pre-started');
      await s.startContainer('p', 'c');
      expect(await again).toMatchObject({ pod: 'p', container: 'c', deviceIds: ['dev-0', 'dev-1'] });
    });

    it('rejects a count that is not a positive integer', async () => {
      const s = await start();
      await expect(s.admit({ pod: 'p', container: 'c', resource, count: 0 })).rejects.toThrow(RangeError);
    });
  });

  describe('checkpoint and restart', () => {
    it('writes kubelet_internal_checkpoint in the kubelet shape after every change (P-17, P-31)', async () => {
      const s = await start();
      await registeredPlugin(s);
      const written = s.waitFor('checkpoint-written');
      await s.admit({ pod: 'p', namespace: 'ns', container: 'c', resource, count: 1 });
      const path = (await written).path;
      const file = JSON.parse(readFileSync(path, 'utf8'));
      expect(file.Data.RegisteredDevices).toEqual({ [resource]: ['dev-0', 'dev-1', 'dev-2', 'dev-3'] });
      expect(file.Data.PodDeviceEntries).toEqual([
        {
          PodUID: 'ns/p',
          ContainerName: 'c',
          ResourceName: resource,
          DeviceIDs: { '0': ['dev-0'] },
          AllocResp: expect.any(String),
        },
      ]);
      expect(typeof file.Checksum).toBe('number');
    });

    it('restart deletes every socket but keeps the checkpoint and other files (P-2, P-3, P-5)', async () => {
      const s = await start();
      const p = await registeredPlugin(s, { reregister: 'never' });
      await s.admit({ pod: 'p', container: 'c', resource, count: 1 });
      writeFileSync(join(dir, 'notes.txt'), 'keep me');
      const stray: NetServer = createServer();
      await new Promise<void>((resolve) => stray.listen(join(dir, 'stray.sock'), resolve));
      await s.restart();
      stray.close();
      const names = readdirSync(dir).sort();
      expect(names).toEqual(['kubelet.sock', 'kubelet_internal_checkpoint', 'notes.txt']);
      expect(existsSync(p.socketPath)).toBe(false);
      expect(s.resource(resource)).toMatchObject({ registered: false, capacity: 0, devices: [] });
    });

    it('restart with waitForPlugins resolves once the plugin registered again (P-20)', async () => {
      const s = await start();
      await registeredPlugin(s);
      const restarted = s.waitFor('restarted');
      const relisted = s.waitFor('devices', (e) => e.healthy.length === 4, 20_000);
      await s.restart({ waitForPlugins: true, timeoutMs: 20_000 });
      await restarted;
      expect(s.resource(resource)?.registered).toBe(true);
      await relisted;
      expect(s.resource(resource)?.capacity).toBe(4);
    });
    it('the test plugin registers once per restart and per dropped stream, so a late first list still arrives', async () => {
      const s = await start();
      await registeredPlugin(s, { firstListDelayMs: 200 });
      const registrations: number[] = [];
      s.events.on('event', (e) => {
        if (e.type === 'registered') registrations.push(e.at);
      });
      const listed = (): Promise<unknown> => s.waitFor('devices', (e) => e.healthy.length === 4, 20_000);
      for (let i = 0; i < 10; i += 1) {
        const relisted = listed();
        await s.restart();
        await relisted;
      }
      const relisted = listed();
      s.dropStream(resource);
      await relisted;
      // A restart both ends the stream and replaces kubelet.sock: a plugin that answers both registers twice,
      // and the second Register replaces the first one's stream before its list.
      expect(registrations).toHaveLength(11);
    });

    it('keeps admitted pods across a restart from the checkpoint, without a new Allocate (P-5, P-25)', async () => {
      const s = await start();
      await registeredPlugin(s, { reregister: 'never' });
      const before = await s.admit({ pod: 'p', container: 'c', resource, count: 2 });
      await s.restart();
      expect(s.resource(resource)?.allocatable).toBe(0);
      const after = await s.admit({ pod: 'p', container: 'c', resource, count: 2 });
      expect(after.deviceIds).toEqual(before.deviceIds);
      expect(after.response).toEqual(before.response);
    });

    it('starts empty from a corrupt checkpoint (P-31)', async () => {
      writeFileSync(join(dir, 'kubelet_internal_checkpoint'), '{"Data": 42');
      const s = await start();
      expect(s.resources()).toEqual([]);
    });
  });

  describe('fault injection', () => {
    it('dropStream ends the stream from the kubelet side; a good plugin registers again (P-19)', async () => {
      const s = await start();
      await registeredPlugin(s);
      const ended = s.waitFor('stream-ended');
      const again = s.waitFor('registered', undefined, 20_000);
      s.dropStream(resource);
      expect((await ended).reason).toMatch(/fault injection/);
      expect(s.resource(resource)?.allocatable).toBe(0);
      await again;
      expect(s.resource(resource)?.registered).toBe(true);
      expect(() => s.dropStream('example.com/none')).toThrow(/no open ListAndWatch stream/);
    });

    it('refuseNextRegister fails the next Register with UNKNOWN and that message', async () => {
      const s = await start();
      s.refuseNextRegister('not today');
      const rejected = s.waitFor('register-rejected');
      const registered = s.waitFor('registered', undefined, 20_000);
      await plugin();
      expect((await rejected).message).toBe('not today');
      await registered;
      expect(s.resource(resource)?.registered).toBe(true);
    });

    it('deletePluginSocket removes the plugin socket', async () => {
      const s = await start();
      const p = await registeredPlugin(s, { reregister: 'never' });
      await s.deletePluginSocket(resource);
      expect(existsSync(p.socketPath)).toBe(false);
      await expect(s.deletePluginSocket('example.com/none')).rejects.toThrow(/no plugin socket/);
    });

    it('stallNext delays GetDevicePluginOptions, so Register answers late (P-11)', async () => {
      const s = await start();
      await registeredPlugin(s, { endpoint: 'first.sock' });
      s.stallNext('getDevicePluginOptions', 300);
      const started = performance.now();
      expect(await register(dir, { endpoint: 'first.sock' })).toBeUndefined();
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });

    it('stallNext delays the next ListAndWatch', async () => {
      const s = await start();
      s.stallNext('listAndWatch', 300);
      const registered = s.waitFor('registered');
      const devices = s.waitFor('devices');
      await plugin();
      const gap = (await devices).at - (await registered).at;
      expect(gap).toBeGreaterThanOrEqual(290);
    });
  });

  describe('waitFor', () => {
    it('rejects on timeout naming the event', async () => {
      const s = await start();
      await expect(s.waitFor('restarted', undefined, 20)).rejects.toThrow(
        'no "restarted" event within 20 ms',
      );
    });
  });
});
