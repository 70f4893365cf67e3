import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCdiDevices, startPluginRun } from '@kdp/core/testing';
import type { DraServeModeEvent } from '@kdp/dra';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine, NVIDIA_UUIDS } from './testing/machines';

jest.setTimeout(60_000);

const NODE = 'node-a';
const DRIVER = 'gpu.kdp.dev';
const POOL = `${NODE}/nvidia.com/gpu`;

interface Answer {
  readonly devices: readonly { containerPath: string; hostPath: string; permissions?: string }[];
  readonly mounts: readonly { containerPath: string; hostPath: string; readOnly?: boolean }[];
  readonly env: readonly string[];
}

type SliceDevice = { name: string; attributes: Record<string, Record<string, unknown>> };

const byPath = <T extends { containerPath: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => (a.containerPath < b.containerPath ? -1 : 1));

/** The first `type` event of the DRA mode that `predicate` accepts, from now on. */
function nextEvent(
  events: EventEmitter,
  predicate: (event: DraServeModeEvent) => boolean,
): Promise<DraServeModeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('DRA mode event not seen within 30 s')), 30_000);
    const listener = (event: DraServeModeEvent): void => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      events.off('event', listener);
      resolve(event);
    };
    events.on('event', listener);
  });
}

describe('gpu-device-plugin serve --mode dra against kubelet-sim', () => {
  let fixture: SysfsFixture;
  let base: string;
  let config: string;
  /** What the device-plugin mode's Allocate gives a container holding each GPU alone, by device ID. */
  const reference = new Map<string, Answer>();
  let api: ApiServer;
  let sim: KubeletSim;
  let node: DraTestNode | undefined;
  const events = new EventEmitter();
  let cdiDir: string;
  let firstPublish: Promise<DraServeModeEvent>;

  const claim = (
    name: string,
    device: string | readonly { readonly request: string; readonly device: string }[],
    podUid: string,
    config?: readonly unknown[],
  ): void => {
    const results = (typeof device === 'string' ? [{ request: 'gpu', device }] : device).map((r) => ({
      ...r,
      driver: DRIVER,
      pool: POOL,
    }));
    const requests = [...new Set(results.map((r) => r.request.split('/')[0] as string))];
    const created = api.store.create(
      'resourceclaims',
      {
        metadata: { name },
        spec: {
          devices: { requests: requests.map((r) => ({ name: r, exactly: { deviceClassName: DRIVER } })) },
        },
      },
      'default',
    );
    api.store.update(
      'resourceclaims',
      {
        ...created,
        status: {
          allocation: {
            devices: { results, ...(config !== undefined ? { config } : {}) },
            nodeSelector: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] },
              ],
            },
          },
          reservedFor: [{ resource: 'pods', name: `pod-${podUid}`, uid: podUid }],
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
  };
  const specs = () =>
    api.store
      .list('resourceslices')
      .items.map(
        (slice) => (slice as unknown as { spec: { devices?: SliceDevice[] } & Record<string, unknown> }).spec,
      );
  const sliceDevices = (): SliceDevice[] => specs().flatMap((spec) => spec.devices ?? []);
  const nameOf = (id: string): string => {
    const found = sliceDevices().find((device) => device.attributes['id']?.['string'] === id);
    if (found === undefined) throw new Error(`no slice device for ${id}`);
    return found.name;
  };

  beforeAll(async () => {
    fixture = buildNvidiaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-gdra-'));
    config = join(base, 'gpu.yaml');
    // The device-plugin mode hands over device nodes only with passDeviceSpecs (its default is envvar, as
    // NVIDIA's): the reference for what a container needs. The DRA mode runs with the default device-list
    // strategy; both with MIG strategy single (the default is none, NVIDIA's), so MIG devices are compared too.
    writeFileSync(config, 'nvidia:\n  migStrategy: single\n  passDeviceSpecs: true\n');
    const draConfig = join(base, 'gpu-dra.yaml');
    writeFileSync(draConfig, 'nvidia:\n  migStrategy: single\n');
    const common = [...rootFlags(fixture), '--poll-interval', '1h'];

    // The device-plugin mode first: one pod per GPU, each admitted with one device.
    const dpDir = join(base, 'dp');
    const dpSim = await createKubeletSim({ dir: dpDir });
    const dp = startPluginRun(gpuPlugin, [
      'serve',
      ...common,
      '--config',
      config,
      '--device-plugin-dir',
      dpDir,
    ]);
    try {
      await dpSim.until('nvidia.com/gpu', (state) => state.healthy.length === 5);
      for (let i = 0; i < 5; i += 1) {
        const { deviceIds, response } = await dpSim.admit({
          pod: `p${i}`,
          container: 'c',
          resource: 'nvidia.com/gpu',
          count: 1,
        });
        reference.set(deviceIds[0] as string, {
          devices: response.devices,
          mounts: response.mounts,
          env: Object.entries(response.envs).map(([k, v]) => `${k}=${v}`),
        });
      }
    } finally {
      await dp.stop();
      await dpSim.close();
    }

    // Then the same binary in DRA mode, against the kubelet's DRA side and an API server.
    api = await createApiServer({ nodes: [NODE] });
    node = createDraTestNode({
      plugin: gpuPlugin,
      dir: base,
      flags: [...common, '--config', draConfig, '--metrics-address', '127.0.0.1:0'],
      procRoot: fixture.procRoot,
      mode: { onEvent: (e) => events.emit('event', e) },
    });
    cdiDir = node.cdiDir;
    sim = await createKubeletSim({
      dir: node.kubeletDir,
      pluginsRegistryDir: node.pluginsRegistryDir,
      dra: { pluginsRegistryDir: node.pluginsRegistryDir, apiServer: { url: api.url }, nodeName: NODE },
    });
    const registered = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
    firstPublish = nextEvent(events, (e) => e.source === 'slices' && e.type === 'published');
    node.start({ apiServer: api, nodeName: NODE });
    await registered;
  });

  afterAll(async () => {
    await node?.stop();
    await sim?.close();
    await api?.close();
    fixture?.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('registers gpu.kdp.dev and publishes the GPUs as one pool of ResourceSlices with their attributes', async () => {
    expect(await firstPublish).toMatchObject({ driver: DRIVER, pool: POOL, generation: 1 });
    expect(specs()).toEqual([
      expect.objectContaining({
        driver: DRIVER,
        nodeName: NODE,
        pool: { name: POOL, generation: 1, resourceSliceCount: 1 },
      }),
    ]);
    const devices = sliceDevices();
    expect(devices.map((d) => d.attributes['id']?.['string']).sort()).toEqual([...reference.keys()].sort());
    const gpu = devices.find((d) => d.attributes['id']?.['string'] === NVIDIA_UUIDS['0000:83:00.0']);
    expect(gpu?.attributes).toMatchObject({
      resource: { string: 'nvidia.com/gpu' },
      numa: { int: 1 },
      vendor: { string: '0x10de' },
      model: { string: 'NVIDIA H100 80GB HBM3' },
      uuid: { string: NVIDIA_UUIDS['0000:83:00.0'] },
      'resource.kubernetes.io/pciBusID': { string: '0000:83:00.0' },
    });
    // Names are DNS labels derived from the IDs (a MIG ID has slashes): stable and distinct.
    for (const { name } of devices) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(new Set(devices.map((d) => d.name)).size).toBe(5);
  });

  it('prepares each GPU with the device nodes and mounts of the device-plugin Allocate under the default envvar strategy, NVIDIA_VISIBLE_DEVICES=void; unprepare removes its CDI spec', async () => {
    let n = 0;
    for (const [id, answer] of reference) {
      n += 1;
      claim(`claim-${n}`, nameOf(id), `uid-${n}`);
      const [prepared] = await sim.prepareClaims({ name: `pod-${n}`, uid: `uid-${n}` }, [`claim-${n}`]);
      const ids = prepared?.devices.flatMap((d) => d.cdiDeviceIds) ?? [];
      expect(ids.length).toBeGreaterThan(0);
      const resolved = resolveCdiDevices(cdiDir, ids);
      expect(byPath(resolved.devices)).toEqual(byPath(answer.devices));
      expect(byPath(resolved.mounts)).toEqual(byPath(answer.mounts));
      // CDI is the only hand-over: the legacy runtime hook must not act on the variable as well (NVIDIA's DRA).
      expect(resolved.env).toEqual(['NVIDIA_VISIBLE_DEVICES=void']);
      expect(answer.devices.length).toBeGreaterThan(0);
      expect(answer.env).toEqual([`NVIDIA_VISIBLE_DEVICES=${id}`]);
      const claimSpecs = () => readdirSync(cdiDir).filter((f) => f.includes(prepared?.uid ?? '?'));
      expect(claimSpecs()).toHaveLength(1);
      const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === `pod-${n}`, 30_000);
      await sim.deletePod(`pod-${n}`);
      await unprepared;
      expect(claimSpecs()).toEqual([]);
    }
  });

  it('answers each device under its base request with only its own CDI edits (a prioritized list, two requests)', async () => {
    const first = nameOf(NVIDIA_UUIDS['0000:03:00.0']);
    const second = nameOf(NVIDIA_UUIDS['0000:83:00.0']);
    claim(
      'two-requests',
      [
        { request: 'main/big', device: first },
        { request: 'other', device: second },
      ],
      'uid-two',
    );
    const [prepared] = await sim.prepareClaims({ name: 'pod-two', uid: 'uid-two' }, ['two-requests']);
    const byDevice = new Map(prepared?.devices.map((d) => [d.deviceName, d]));
    expect(byDevice.get(first)?.requestNames).toEqual(['main']);
    expect(byDevice.get(second)?.requestNames).toEqual(['other']);
    // A container naming `main` gets the first GPU's node, not the other request's.
    const main = resolveCdiDevices(cdiDir, byDevice.get(first)?.cdiDeviceIds ?? []);
    const other = resolveCdiDevices(cdiDir, byDevice.get(second)?.cdiDeviceIds ?? []);
    const own = (answer: Answer | undefined) =>
      (answer?.devices ?? []).map((d) => d.containerPath).filter((p) => /\/dev\/nvidia\d+$/.test(p));
    expect(main.devices.map((d) => d.containerPath)).toEqual(
      expect.arrayContaining(own(reference.get(NVIDIA_UUIDS['0000:03:00.0']))),
    );
    expect(main.devices.map((d) => d.containerPath)).not.toEqual(
      expect.arrayContaining(own(reference.get(NVIDIA_UUIDS['0000:83:00.0']))),
    );
    expect(other.devices.map((d) => d.containerPath)).toEqual(
      expect.arrayContaining(own(reference.get(NVIDIA_UUIDS['0000:83:00.0']))),
    );
    expect(main.env).toEqual(['NVIDIA_VISIBLE_DEVICES=void']);
    const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === 'pod-two', 30_000);
    await sim.deletePod('pod-two');
    await unprepared;
  });

  it('fails the prepare of a claim whose opaque configuration is no GpuConfig, naming the field', async () => {
    claim('configured', nameOf(NVIDIA_UUIDS['0000:04:00.0']), 'uid-conf', [
      { source: 'FromClaim', requests: ['gpu'], opaque: { driver: DRIVER, parameters: { sharing: 'mps' } } },
    ]);
    await expect(sim.prepareClaims({ name: 'pod-conf', uid: 'uid-conf' }, ['configured'])).rejects.toThrow(
      /status\.allocation\.devices\.config\[0\]\.opaque\.parameters\.apiVersion: required field/,
    );
    await sim.deletePod('pod-conf').catch(() => undefined);
  });

  it('after a kubelet restart publishes the slices again and prepares the running pod with the same devices', async () => {
    const id = NVIDIA_UUIDS['0000:04:00.0'];
    claim('kept', nameOf(id), 'uid-kept');
    const [before] = await sim.prepareClaims({ name: 'pod-kept', uid: 'uid-kept' }, ['kept']);
    const wiped = sim.waitFor('slices-deleted', (e) => e.reason === 'kubelet-start', 30_000);
    const republished = nextEvent(events, (e) => e.source === 'slices' && e.type === 'published');
    const again = sim.waitFor('dra-prepared', (e) => e.pod === 'pod-kept', 30_000);
    await sim.restart();
    await wiped;
    expect((await republished) as { generation: number }).toMatchObject({ pool: POOL });
    expect(((await republished) as { generation: number }).generation).toBeGreaterThan(1);
    expect(sliceDevices()).toHaveLength(5);
    const after = (await again).claims.find((c) => c.name === 'kept');
    expect(after?.devices).toEqual(before?.devices);
    expect(existsSync(cdiDir)).toBe(true);
    const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === 'pod-kept', 30_000);
    await sim.deletePod('pod-kept');
    await unprepared;
  });

  it('exports the DRA metrics on /metrics: prepare and unprepare calls, publication, slices and devices', async () => {
    const serving = await node?.run()?.waitForLog((line) => typeof line['url'] === 'string', 10_000);
    const text = await (await fetch(`${String(serving?.['url'])}/metrics`)).text();
    const driver = `driver="${DRIVER}"`;
    expect(text).toMatch(new RegExp(`^kdp_dra_prepare_calls_total\\{${driver},outcome="ok"\\} [1-9]`, 'm'));
    expect(text).toMatch(
      new RegExp(`^kdp_dra_prepare_calls_total\\{${driver},outcome="error"\\} [1-9]`, 'm'),
    );
    expect(text).toMatch(new RegExp(`^kdp_dra_unprepare_calls_total\\{${driver},outcome="ok"\\} [1-9]`, 'm'));
    expect(text).toMatch(new RegExp(`^kdp_dra_prepare_duration_seconds_count\\{${driver}\\} [1-9]`, 'm'));
    expect(text).toMatch(new RegExp(`^kdp_dra_publish_duration_seconds_count\\{${driver}\\} [1-9]`, 'm'));
    expect(text).toContain(`kdp_dra_resource_slices{${driver},pool="${POOL}"} 1`);
    expect(text).toContain(`kdp_dra_published_devices{${driver},pool="${POOL}"} 5`);
  });
});
