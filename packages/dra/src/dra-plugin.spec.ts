import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { draHealthV1, type draV1 } from '@kdp/api';
import { createFakeClock } from '@kdp/kubelet-sim';
import type { DraDriver, PrepareInput, UnprepareInput } from './claim-preparer';
import { createCheckpoint } from './checkpoint';
import { createDraPlugin, type DraPlugin, type DraPluginEvent, type DraPluginOptions } from './dra-plugin';
import {
  allocatedClaim,
  createClients,
  createFakeClaimReader,
  createTestDirs,
  unary,
} from './dra-test.fixture';
import type { DeviceHealthReport, HealthSource } from './health-service';

const DRIVER = 'gpu.kdp.dev';

/** A driver that hands out one CDI device per allocated device and records its calls. */
function createTestDriver(): DraDriver & { prepares: PrepareInput[]; unprepares: UnprepareInput[] } {
  const prepares: PrepareInput[] = [];
  const unprepares: UnprepareInput[] = [];
  return {
    prepares,
    unprepares,
    decodeConfig(parameters) {
      if (typeof (parameters as { mode?: unknown } | null)?.mode !== 'string')
        throw new Error('mode must be a string');
      return parameters;
    },
    async prepare(input) {
      prepares.push(input);
      if (input.claim.metadata.name === 'driver-fails') throw new Error('the GPU is on fire');
      if (input.claim.metadata.name === 'driver-lies')
        return { devices: [{ requestNames: [], poolName: 'node-1', deviceName: 'gpu-99' }] };
      return {
        devices: input.results.map((r) => ({
          requestNames: [r.request],
          poolName: r.pool,
          deviceName: r.device,
          containerEdits: {
            env: [`DEVICE_${r.device.replace('-', '_').toUpperCase()}=${input.claim.metadata.name}`],
            deviceNodes: [{ path: `/dev/dri/${r.device}` }],
          },
        })),
      };
    },
    async unprepare(input) {
      unprepares.push(input);
    },
  };
}

/** A health source whose list the test sets. */
function createTestHealth(
  initial: DeviceHealthReport[],
): HealthSource & { set(list: DeviceHealthReport[]): void } {
  let list = initial;
  const listeners = new Set<() => void>();
  return {
    current: () => list,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      list = next;
      listeners.forEach((l) => l());
    },
  };
}

describe('createDraPlugin', () => {
  let dirs: ReturnType<typeof createTestDirs>;
  let plugin: DraPlugin | undefined;
  let clients: ReturnType<typeof createClients> | undefined;
  let events: DraPluginEvent[];
  const reader = createFakeClaimReader();
  let driver: ReturnType<typeof createTestDriver>;

  beforeEach(() => {
    dirs = createTestDirs();
    events = [];
    reader.store.clear();
    reader.calls.length = 0;
    driver = createTestDriver();
  });

  afterEach(async () => {
    clients?.close();
    clients = undefined;
    await plugin?.stop();
    plugin = undefined;
    dirs.remove();
  });

  const options = (extra: Partial<DraPluginOptions> = {}): DraPluginOptions => ({
    driverName: DRIVER,
    nodeName: 'node-1',
    driver,
    claims: reader,
    pluginsRegistryDir: dirs.registry,
    draPluginsDir: dirs.plugins,
    cdi: { dir: dirs.cdi },
    procRoot: dirs.proc,
    onEvent: (event) => events.push(event),
    ...extra,
  });

  async function start(extra: Partial<DraPluginOptions> = {}): Promise<DraPlugin> {
    clients?.close();
    await plugin?.stop();
    plugin = createDraPlugin(options(extra));
    await plugin.start();
    clients = createClients(plugin.registrationSocket, plugin.draSocket);
    return plugin;
  }

  const prepare = (claims: draV1.Claim[], api: 'v1' | 'v1beta1' = 'v1') =>
    unary<draV1.NodePrepareResourcesRequest, draV1.NodePrepareResourcesResponse>(
      cl()[api].nodePrepareResources as never,
      cl()[api],
      { claims },
    );
  const unprepare = (claims: draV1.Claim[]) =>
    unary<draV1.NodeUnprepareResourcesRequest, draV1.NodeUnprepareResourcesResponse>(
      cl().v1.nodeUnprepareResources as never,
      cl().v1,
      { claims },
    );
  const cl = (): ReturnType<typeof createClients> => {
    if (clients === undefined) throw new Error('not started');
    return clients;
  };
  const pl = (): DraPlugin => {
    if (plugin === undefined) throw new Error('not started');
    return plugin;
  };
  const ref = (name: string, uid: string) => ({ namespace: 'default', name, uid });
  const cdiFiles = () =>
    existsSync(dirs.cdi) ? readdirSync(dirs.cdi).filter((f) => f.endsWith('.json')) : [];

  it('serves GetInfo on <registry>/<driver>-reg.sock with the DRA socket and the services in order', async () => {
    const p = await start({ health: createTestHealth([]) });
    expect(p.registrationSocket).toBe(join(dirs.registry, `${DRIVER}-reg.sock`));
    expect(p.draSocket).toBe(join(dirs.plugins, DRIVER, 'dra.sock'));
    expect(statSync(p.registrationSocket).mode & 0o777).toBe(0o600);
    expect(statSync(p.draSocket).mode & 0o777).toBe(0o600);
    const info = await unary(cl().registration.getInfo as never, cl().registration, {});
    expect(info).toEqual({
      type: 'DRAPlugin',
      name: DRIVER,
      endpoint: p.draSocket,
      supportedVersions: [
        'v1.DRAPlugin',
        'v1beta1.DRAPlugin',
        'v1.DRAResourceHealth',
        'v1alpha1.DRAResourceHealth',
      ],
    });
  });

  it('lists no health service without a health source, and uses pod-UID socket names for rolling updates', async () => {
    const p = await start({ podUid: '6b1a0e4c-0d1e-4f7a-9c1b-2e3f4a5b6c7d' });
    expect(p.registrationSocket).toBe(
      join(dirs.registry, `${DRIVER}-6b1a0e4c-0d1e-4f7a-9c1b-2e3f4a5b6c7d-reg.sock`),
    );
    expect(p.draSocket).toBe(join(dirs.plugins, DRIVER, 'dra-6b1a0e4c-0d1e-4f7a-9c1b-2e3f4a5b6c7d.sock'));
    const info = await unary<object, { supportedVersions: string[]; endpoint: string }>(
      cl().registration.getInfo as never,
      cl().registration,
      {},
    );
    expect(info.supportedVersions).toEqual(['v1.DRAPlugin', 'v1beta1.DRAPlugin']);
    expect(info.endpoint).toBe(p.draSocket);
  });

  it('surfaces NotifyRegistrationStatus as an event and in registrationStatus()', async () => {
    const p = await start();
    expect(p.registrationStatus()).toBeUndefined();
    const notify = (pluginRegistered: boolean, error: string) =>
      unary(cl().registration.notifyRegistrationStatus as never, cl().registration, {
        pluginRegistered,
        error,
      });
    await notify(false, 'endpoint already registered');
    expect(p.registrationStatus()).toEqual({ registered: false, error: 'endpoint already registered' });
    await notify(true, '');
    expect(events.filter((e) => e.type === 'registration')).toEqual([
      { type: 'registration', registered: false, error: 'endpoint already registered' },
      { type: 'registration', registered: true, error: '' },
    ]);
  });

  it('answers every claim of a batch, each with its devices or its own error', async () => {
    reader.store.set(
      'default/a',
      allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }, { device: 'gpu-1', request: 'b' }]),
    );
    reader.store.set('default/b', allocatedClaim('b', 'uid-b', [{ device: 'gpu-2' }]));
    reader.store.set('default/mismatch', allocatedClaim('mismatch', 'uid-new', [{ device: 'gpu-3' }]));
    reader.store.set(
      'default/elsewhere',
      allocatedClaim('elsewhere', 'uid-e', [{ device: 'gpu-4' }], { node: 'node-2' }),
    );
    reader.store.set('default/unallocated', {
      metadata: { namespace: 'default', name: 'unallocated', uid: 'uid-u' },
    });
    reader.store.set(
      'default/foreign',
      allocatedClaim('foreign', 'uid-f', [{ device: 'x' }], { driver: 'nic.kdp.dev' }),
    );
    await start();
    const response = await prepare([
      ref('a', 'uid-a'),
      ref('b', 'uid-b'),
      ref('mismatch', 'uid-old'),
      ref('missing', 'uid-m'),
      ref('elsewhere', 'uid-e'),
      ref('unallocated', 'uid-u'),
      ref('foreign', 'uid-f'),
    ]);
    expect(Object.keys(response.claims).sort()).toEqual(
      ['uid-a', 'uid-b', 'uid-old', 'uid-m', 'uid-e', 'uid-u', 'uid-f'].sort(),
    );
    expect(response.claims['uid-a']).toEqual({
      error: '',
      devices: [
        {
          requestNames: ['gpu'],
          poolName: 'node-1',
          deviceName: 'gpu-0',
          cdiDeviceIds: [`${DRIVER}/claim=uid-a-gpu-0`],
        },
        {
          requestNames: ['b'],
          poolName: 'node-1',
          deviceName: 'gpu-1',
          cdiDeviceIds: [`${DRIVER}/claim=uid-a-gpu-1`],
        },
      ],
    });
    expect(response.claims['uid-b']?.devices.map((d) => d.deviceName)).toEqual(['gpu-2']);
    expect(response.claims['uid-old']?.error).toMatch(/has UID uid-new, the kubelet asked for uid-old/);
    expect(response.claims['uid-m']?.error).toMatch(/default\/missing not found/);
    expect(response.claims['uid-e']?.error).toMatch(/allocated to another node, not node-1/);
    expect(response.claims['uid-u']?.error).toMatch(/is not allocated/);
    expect(response.claims['uid-f']?.error).toMatch(/no devices of driver gpu.kdp.dev/);
    for (const uid of ['uid-old', 'uid-m', 'uid-e', 'uid-u', 'uid-f'])
      expect(response.claims[uid]?.devices).toEqual([]);

    // The driver saw only the good claims, with this driver's config only, class config first.
    expect(driver.prepares.map((p) => p.claim.metadata.name)).toEqual(['a', 'b']);
    expect(driver.prepares[0]?.config).toEqual([
      { source: 'FromClass', requests: [], parameters: { mode: 'class' } },
    ]);
    // One CDI spec per prepared claim, each device with all it needs (no claim-wide edits: a container naming
    // request b must not get request gpu's environment).
    expect(cdiFiles().sort()).toEqual([`kdp-${DRIVER}-claim_uid-a.json`, `kdp-${DRIVER}-claim_uid-b.json`]);
    const spec = JSON.parse(readFileSync(join(dirs.cdi, `kdp-${DRIVER}-claim_uid-a.json`), 'utf8'));
    expect(spec.kind).toBe(`${DRIVER}/claim`);
    expect(spec.devices).toEqual([
      {
        name: 'uid-a-gpu-0',
        containerEdits: { env: ['DEVICE_GPU_0=a'], deviceNodes: [{ path: '/dev/dri/gpu-0' }] },
      },
      {
        name: 'uid-a-gpu-1',
        containerEdits: { env: ['DEVICE_GPU_1=a'], deviceNodes: [{ path: '/dev/dri/gpu-1' }] },
      },
    ]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'prepared', claims: 7 }));
  });

  it('answers a prioritized-list result (`main/sub`) under the base request name the container names', async () => {
    reader.store.set(
      'default/a',
      allocatedClaim('a', 'uid-a', [
        { device: 'gpu-0', request: 'main/big' },
        { device: 'gpu-1', request: 'main/big' },
        { device: 'gpu-2', request: 'other' },
      ]),
    );
    await start();
    const response = await prepare([ref('a', 'uid-a')]);
    expect(response.claims['uid-a']?.devices.map((d) => [d.deviceName, d.requestNames])).toEqual([
      ['gpu-0', ['main']],
      ['gpu-1', ['main']],
      ['gpu-2', ['other']],
    ]);
  });

  it('prepares idempotently: the same devices again, from its own state, on v1 and v1beta1', async () => {
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    await start();
    const first = await prepare([ref('a', 'uid-a')]);
    expect(first.claims['uid-a']?.error).toBe('');
    const again = await prepare([ref('a', 'uid-a'), ref('a', 'uid-a')]);
    const beta = await prepare([ref('a', 'uid-a')], 'v1beta1');
    expect(again).toEqual(first);
    expect(beta).toEqual(first);
    expect(reader.calls).toEqual(['default/a']);
    expect(driver.prepares).toHaveLength(1);
  });

  it('unprepares a prepared claim (driver callback, CDI spec removed) and an unknown one without error', async () => {
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    await start();
    await prepare([ref('a', 'uid-a')]);
    expect(cdiFiles()).toHaveLength(1);
    const response = await unprepare([ref('a', 'uid-a'), ref('ghost', 'uid-g')]);
    expect(response.claims).toEqual({ 'uid-a': { error: '' }, 'uid-g': { error: '' } });
    expect(cdiFiles()).toEqual([]);
    expect(driver.unprepares.map((u) => [u.claim.uid, u.state, u.devices.map((d) => d.deviceName)])).toEqual([
      ['uid-a', 'PrepareCompleted', ['gpu-0']],
    ]);
    expect(pl().prepared().size).toBe(0);
    // Unprepare again: still fine, the driver is not called twice.
    expect((await unprepare([ref('a', 'uid-a')])).claims['uid-a']).toEqual({ error: '' });
    expect(driver.unprepares).toHaveLength(1);
  });

  it('refuses a device already prepared for another claim, until that claim is unprepared', async () => {
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    reader.store.set('default/b', allocatedClaim('b', 'uid-b', [{ device: 'gpu-0' }]));
    reader.store.set(
      'default/admin',
      allocatedClaim('admin', 'uid-admin', [{ device: 'gpu-0', adminAccess: true }]),
    );
    await start();
    await prepare([ref('a', 'uid-a')]);
    const clash = await prepare([ref('b', 'uid-b'), ref('admin', 'uid-admin')]);
    expect(clash.claims['uid-b']?.error).toMatch(/gpu-0 is already prepared for claim default\/a \(uid-a\)/);
    expect(clash.claims['uid-admin']?.error).toBe('');
    await unprepare([ref('a', 'uid-a')]);
    expect((await prepare([ref('b', 'uid-b')])).claims['uid-b']?.error).toBe('');
  });

  it('reports driver failures per claim and lets unprepare clean up a prepare that never completed', async () => {
    reader.store.set('default/driver-fails', allocatedClaim('driver-fails', 'uid-x', [{ device: 'gpu-0' }]));
    reader.store.set('default/driver-lies', allocatedClaim('driver-lies', 'uid-y', [{ device: 'gpu-1' }]));
    await start();
    const response = await prepare([ref('driver-fails', 'uid-x'), ref('driver-lies', 'uid-y')]);
    expect(response.claims['uid-x']?.error).toMatch(/the GPU is on fire/);
    expect(response.claims['uid-y']?.error).toMatch(
      /device node-1\/gpu-99, which is not allocated to the claim/,
    );
    expect(pl().prepared().get('uid-x')?.state).toBe('PrepareStarted');
    await unprepare([ref('driver-fails', 'uid-x')]);
    expect(driver.unprepares.map((u) => [u.claim.uid, u.state])).toEqual([['uid-x', 'PrepareStarted']]);
  });

  it('after a plugin restart returns the same devices from the checkpoint and re-writes a missing CDI spec', async () => {
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    await start();
    const before = await prepare([ref('a', 'uid-a')]);
    const specPath = join(dirs.cdi, cdiFiles()[0] ?? 'missing');
    const spec = readFileSync(specPath, 'utf8');
    rmSync(specPath);
    reader.store.clear(); // the API server is not asked again
    await start();
    expect(events.map((e) => e.type)).not.toContain('rebooted');
    expect(await prepare([ref('a', 'uid-a')])).toEqual(before);
    expect(readFileSync(specPath, 'utf8')).toBe(spec);
    expect(driver.prepares).toHaveLength(1);
  });

  it('after a reboot (new boot ID) discards the checkpointed claims and prepares them again, work and CDI specs', async () => {
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    await start();
    const before = await prepare([ref('a', 'uid-a')]);
    const names = cdiFiles();
    await pl().stop();
    rmSync(dirs.cdi, { recursive: true });
    dirs.setBootId('boot-2');
    await start();
    expect(events).toContainEqual({
      type: 'rebooted',
      previousBootId: 'boot-1',
      bootId: 'boot-2',
      discarded: 1,
    });
    expect(pl().prepared().size).toBe(0);
    // The driver's work is done again (a programmed FPGA region did not survive the reboot), not answered from
    // the checkpoint: the claim is read again and handed to the driver.
    expect(await prepare([ref('a', 'uid-a')])).toEqual(before);
    expect(driver.prepares).toHaveLength(2);
    expect(reader.calls).toEqual(['default/a', 'default/a']);
    expect(cdiFiles()).toEqual(names);
    // The checkpoint now carries the new boot ID: the next restart is no reboot.
    events.length = 0;
    await start();
    expect(events.map((e) => e.type)).not.toContain('rebooted');
    expect(pl().prepared().get('uid-a')?.state).toBe('PrepareCompleted');
  });

  it('shares the checkpoint with a second instance (rolling update): concurrent prepares and cross unprepares lose nothing', async () => {
    for (const name of ['a', 'b', 'c'])
      reader.store.set(`default/${name}`, allocatedClaim(name, `uid-${name}`, [{ device: `gpu-${name}` }]));
    reader.store.set('default/steal', allocatedClaim('steal', 'uid-steal', [{ device: 'gpu-a' }]));
    const old = await start({ podUid: 'pod-old' });
    const oldClients = cl();
    clients = undefined;
    plugin = undefined;
    const next = createDraPlugin(options({ podUid: 'pod-new' }));
    await next.start();
    const newClients = createClients(next.registrationSocket, next.draSocket);
    const call = <Res>(
      c: ReturnType<typeof createClients>,
      method: 'nodePrepareResources' | 'nodeUnprepareResources',
      claims: draV1.Claim[],
    ) => unary<{ claims: draV1.Claim[] }, Res>(c.v1[method] as never, c.v1, { claims });
    try {
      expect(old.checkpoint.path).toBe(next.checkpoint.path);
      // Both instances prepare at once, each its own claims (reads held so that the calls overlap).
      const releaseA = reader.hold('default/a');
      const releaseB = reader.hold('default/b');
      const prepared = Promise.all([
        call<draV1.NodePrepareResourcesResponse>(oldClients, 'nodePrepareResources', [
          ref('a', 'uid-a'),
          ref('c', 'uid-c'),
        ]),
        call<draV1.NodePrepareResourcesResponse>(newClients, 'nodePrepareResources', [ref('b', 'uid-b')]),
      ]);
      await waitFor(() => reader.calls.includes('default/a') && reader.calls.includes('default/b'));
      releaseA();
      releaseB();
      const [fromOld, fromNew] = await prepared;
      expect(fromOld.claims['uid-a']?.error).toBe('');
      expect(fromOld.claims['uid-c']?.error).toBe('');
      expect(fromNew.claims['uid-b']?.error).toBe('');
      const reopened = createCheckpoint({ dir: join(dirs.plugins, DRIVER), procRoot: dirs.proc });
      expect([...(await reopened.read()).keys()].sort()).toEqual(['uid-a', 'uid-b', 'uid-c']);
      // The new instance knows the old one's devices: no second claim gets gpu-a.
      const steal = await call<draV1.NodePrepareResourcesResponse>(newClients, 'nodePrepareResources', [
        ref('steal', 'uid-steal'),
      ]);
      expect(steal.claims['uid-steal']?.error).toMatch(/gpu-a is already prepared for claim default\/a/);
      // Each unprepares a claim the other prepared (the kubelet talks to the newest endpoint).
      await Promise.all([
        call(newClients, 'nodeUnprepareResources', [ref('a', 'uid-a'), ref('steal', 'uid-steal')]),
        call(oldClients, 'nodeUnprepareResources', [ref('b', 'uid-b')]),
      ]);
      expect([...(await reopened.read()).keys()]).toEqual(['uid-c']);
      expect(driver.unprepares.map((u) => u.claim.uid).sort()).toEqual(['uid-a', 'uid-b']);
      expect(cdiFiles()).toEqual([`kdp-${DRIVER}-claim_uid-c.json`]);
    } finally {
      oldClients.close();
      newClients.close();
      await old.stop();
      await next.stop();
    }
  });

  it('moves a corrupt checkpoint aside, reports it and starts with no prepared claims', async () => {
    await start();
    await pl().stop();
    writeFileSync(
      pl().checkpoint.path,
      '{"version":1,"checksum":"00","data":{"bootId":"boot-1","claims":{}}}',
    );
    const clock = createFakeClock(1_800_000_000_000);
    await start({ clock });
    expect(events).toContainEqual({
      type: 'checkpoint-corrupt',
      reason: 'checksum mismatch',
      movedTo: `${pl().checkpoint.path}.corrupt-1800000000000`,
    });
    expect(existsSync(`${pl().checkpoint.path}.corrupt-1800000000000`)).toBe(true);
    expect(pl().prepared().size).toBe(0);
    reader.store.set('default/a', allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]));
    expect((await prepare([ref('a', 'uid-a')])).claims['uid-a']?.error).toBe('');
  });

  it('refuses to start over a socket another instance still serves', async () => {
    await start();
    const second = createDraPlugin(options({ onEvent: undefined }));
    await expect(second.start()).rejects.toThrow(/is served by another instance/);
    await second.stop();
  });

  it('rejects a driver name that is not a DNS subdomain', () => {
    expect(() => createDraPlugin(options({ driverName: 'GPU_kdp' }))).toThrow(/not a DNS subdomain/);
  });

  describe('NodeWatchResources', () => {
    // Observed 10 s before the stream opens (the last scan).
    const healthy: DeviceHealthReport[] = [
      { poolName: 'node-1', deviceName: 'gpu-0', health: 'Healthy', observedAt: 1_799_999_990_000 },
      { poolName: 'node-1', deviceName: 'gpu-1', health: 'Healthy', observedAt: 1_799_999_990_500 },
    ];

    function messages(stream: ClientReadableStream<draHealthV1.NodeWatchResourcesResponse>) {
      const received: draHealthV1.NodeWatchResourcesResponse[] = [];
      stream.on('data', (m: draHealthV1.NodeWatchResourcesResponse) => received.push(m));
      stream.on('error', () => undefined);
      return received;
    }

    it.each(['healthV1', 'healthV1alpha1'] as const)(
      '%s streams the full list at once, on every change and every timeout/2',
      async (api) => {
        const clock = createFakeClock(1_800_000_000_000);
        const source = createTestHealth(healthy);
        await start({ health: source, clock, healthCheckTimeoutSeconds: 20 });
        const stream = cl()[api].nodeWatchResources({});
        const received = messages(stream);
        await waitFor(() => received.length === 1);
        expect(received[0]).toEqual({
          devices: healthy.map((d) => ({
            device: { poolName: d.poolName, deviceName: d.deviceName },
            health: draHealthV1.HealthStatus.HEALTHY,
            lastUpdatedTime: 1_799_999_990, // when observed, not when sent
            healthCheckTimeoutSeconds: 20,
            message: '',
          })),
        });

        source.set([
          {
            poolName: 'node-1',
            deviceName: 'gpu-0',
            health: 'Unhealthy',
            message: 'x'.repeat(2000),
            observedAt: 1_800_000_000_000,
          },
          { poolName: 'node-1', deviceName: 'gpu-1', health: 'Unknown', observedAt: 1_800_000_000_000 },
        ]);
        await waitFor(() => received.length === 2);
        expect(received[1]?.devices.map((d) => d.health)).toEqual([
          draHealthV1.HealthStatus.UNHEALTHY,
          draHealthV1.HealthStatus.UNKNOWN,
        ]);
        expect(received[1]?.devices[0]?.message).toBe(`${'x'.repeat(1021)}...`);

        clock.advance(9_999);
        clock.advance(1);
        await waitFor(() => received.length === 3);
        expect(received[2]?.devices).toHaveLength(2);
        // Re-sent 10 s later, nothing observed since: it ages, so a stalled scan times out to Unknown.
        expect(received[2]?.devices[0]?.lastUpdatedTime).toBe(1_800_000_000);

        // A cancelled stream stops its timer and its subscription.
        stream.cancel();
        await waitFor(() => clock.pending === 0);
      },
    );
  });
});

/** Waits until `condition` holds, polling on the event loop; fails after 5 s. */
async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within the timeout');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
