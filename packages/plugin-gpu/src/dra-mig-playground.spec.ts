import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  claimManifest,
  claimRequest,
  deviceClassManifest,
  kubectl,
  podManifest,
  startPlaygroundDriver,
  waitForPod,
  type PlaygroundDriver,
  type PodJson,
} from '@kdp/dra/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { loadNvmlMig } from './nvml/nvml-mig';
import { loadNvmlPartitions } from './nvml/nvml-partitions';
import { createGpuPlugin } from './plugin';
import { migMinor } from './testing/driver-files';
import { buildFakeNvml, type FakeNvml } from './testing/fake-nvml';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaServer, nvidiaServerUuid } from './testing/nvidia-server';

jest.setTimeout(180_000);

const DRIVER = 'gpu.kdp.dev';
const UUID = nvidiaServerUuid(0);

/** A CEL test of one of the driver's attributes, false on devices without it. */
const attr = (name: string, value: string): string =>
  `"${name}" in device.attributes["${DRIVER}"] && device.attributes["${DRIVER}"].${name} == "${value}"`;

const claim = (name: string, selector: string): string =>
  claimManifest(name, claimRequest('gpu', selector, DRIVER));
const pod = (name: string): string => podManifest(name, [name], [[name, 'gpu']]);

/** Polls until `check` returns a value; throws with the last failure after 60 s. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Issue 28, item 1 for NVIDIA: with --dra-dynamic-mig an H100 in MIG mode publishes a counter set and one device
// per MIG profile placement; the playground's scheduler allocates them without overlap, and the driver creates the
// MIG instance through the (fake) NVML at prepare and destroys it at unprepare.
describe('gpu-device-plugin serve --mode dra --dra-dynamic-mig in the DRA playground', () => {
  let dir: string;
  let fixture: SysfsFixture;
  let fake: FakeNvml;
  let setup: PlaygroundDriver;
  const get = async (kind: string, name: string): Promise<PodJson> =>
    JSON.parse(await kubectl(setup.kubeconfig, ['get', kind, name, '-o', 'json'])) as PodJson;
  const apply = (...manifests: string[]) =>
    kubectl(setup.kubeconfig, ['apply', '-f', '-'], manifests.join('---'));
  const running = (name: string) => waitForPod(setup.kubeconfig, name, (p) => p.status.phase === 'Running');
  const unschedulable = async (name: string) =>
    (
      await waitForPod(setup.kubeconfig, name, (p) =>
        (p.status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False'),
      )
    ).status.conditions?.find((c) => c.type === 'PodScheduled');
  const instances = () =>
    (fake.readGpus()[0]?.gpuInstances ?? []).map((gi) => `${gi.profile}@${gi.start}`).sort();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-mig-playground-'));
    fixture = buildNvidiaServer(1);
    // The capability nodes of GPU 0's instances, as nvidia-modprobe creates them from the mig-minors table.
    for (let gi = 1; gi < 15; gi++)
      for (const minor of [migMinor(0, gi), migMinor(0, gi, 0)])
        fixture.addDevNode(`/dev/nvidia-caps/nvidia-cap${minor}`, 509, minor);
    fake = buildFakeNvml(mkdtempSync(join(dir, 'nvml-')), {
      gpus: [{ uuid: UUID, memoryMiB: 81_559, migMode: true }],
    });
    const plugin = createGpuPlugin({
      xidSource: () => undefined,
      nvmlMig: () => loadNvmlMig({ library: fake.library }),
      nvmlPartitions: () => loadNvmlPartitions(fake.library),
    });
    setup = await startPlaygroundDriver({
      plugin,
      driver: DRIVER,
      dir: join(dir, 'node'),
      flags: [...rootFlags(fixture), '--poll-interval', '1h', '--dra-dynamic-mig'],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    await apply(deviceClassManifest(DRIVER));
  });
  afterAll(async () => {
    await setup?.stop();
    fixture?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the GPU counter set and a device per placement, the whole GPU consuming every counter', async () => {
    const slices = JSON.parse(await kubectl(setup.kubeconfig, ['get', 'resourceslices', '-o', 'json'])) as {
      items: {
        spec: {
          devices?: { name: string; consumesCounters?: { counterSet: string; counters: object }[] }[];
          sharedCounters?: { name: string; counters: Record<string, { value: string }> }[];
        };
      }[];
    };
    const sets = slices.items.flatMap((s) => s.spec.sharedCounters ?? []);
    expect(sets.map((s) => s.name)).toEqual(['gpu-0-mig']);
    expect(sets[0]?.counters).toMatchObject({
      'memory-slice-0': { value: '1' },
      'memory-slice-7': { value: '1' },
      'compute-slices': { value: '7' },
      'ofa-engines': { value: '1' },
    });
    const names = slices.items.flatMap((s) => (s.spec.devices ?? []).map((d) => d.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'gpu-0-mig-1g10gb-0',
        'gpu-0-mig-1g10gb-6',
        'gpu-0-mig-3g40gb-4',
        'gpu-0-mig-7g80gb-0',
      ]),
    );
    expect(names).toContain('gpu-0-mig-1g10gb-me-3');
    expect(names.filter((n) => n.startsWith('gpu-0-mig-')).length).toBe(7 + 3 + 2 + 1 + 1 + 7 + 4);
  });

  it('two 3g.40gb claims are both prepared on the GPU, their MIG instances made in NVML; overlapping and whole-GPU claims stay Pending; deleting a pod destroys its instance and the overlapping claim then runs', async () => {
    const profile = (name: string) => attr('profile', name);
    await apply(claim('mig-a', profile('3g.40gb')), pod('mig-a'));
    const a = await running('mig-a');
    await apply(claim('mig-b', profile('3g.40gb')), pod('mig-b'));
    const b = await running('mig-b');
    expect([a.spec.nodeName, b.spec.nodeName]).toEqual([setup.nodeName, setup.nodeName]);
    // NVML_GPU_INSTANCE_PROFILE_3_SLICE (index 2) at both of its placements.
    expect(instances()).toEqual(['2@0', '2@4']);
    const migs = (fake.readGpus()[0]?.migs ?? []).flatMap((m) => (m === undefined ? [] : [m.uuid]));
    expect(migs).toHaveLength(2);
    // Each container got its own MIG device: its UUID and its capability nodes.
    const containers = [a, b].map(
      (p) =>
        JSON.parse(p.metadata.annotations?.['kubelet-sim.kdp.dev/container-devices'] ?? '[]') as {
          env: string[];
          deviceNodes: { path: string }[];
        }[],
    );
    const uuids = containers.map((c) =>
      c[0]?.env.find((e) => e.startsWith('KDP_MIG_UUID_'))?.replace(/^[^=]*=/, ''),
    );
    expect([...uuids].sort()).toEqual([...migs].sort());
    for (const c of containers)
      expect(c[0]?.deviceNodes.map((n) => n.path)).toEqual(
        expect.arrayContaining([
          '/dev/nvidia0',
          '/dev/nvidiactl',
          expect.stringMatching(/^\/dev\/nvidia-caps\//),
        ]),
      );

    // A 4g.40gb (slices 0–3) and the whole GPU overlap what is taken: the scheduler leaves both Pending.
    await apply(claim('mig-c', profile('4g.40gb')), pod('mig-c'));
    await apply(claim('whole', attr('uuid', UUID)), pod('whole'));
    for (const name of ['mig-c', 'whole']) {
      const scheduled = await unschedulable(name);
      expect(scheduled?.reason).toBe('Unschedulable');
      expect(scheduled?.message).toMatch(/^0\/2 nodes are available: .*cannot allocate all claims/);
      expect((await get('pod', name)).spec.nodeName).toBeUndefined();
    }
    expect(instances()).toEqual(['2@0', '2@4']);

    // Deleting a pod unprepares its claim: its MIG instance is destroyed in NVML. With the claim gone too, its
    // slices are free again: the waiting 4g.40gb is scheduled there and made; the whole GPU still waits.
    const [aUuid] = uuids;
    await kubectl(setup.kubeconfig, ['delete', 'pod', 'mig-a', '--wait=false']);
    await kubectl(setup.kubeconfig, ['delete', 'resourceclaim', 'mig-a', '--wait=false']);
    await eventually(
      async () => (instances().includes('2@0') ? undefined : true),
      'the instance of mig-a destroyed',
    );
    await running('mig-c');
    expect(instances()).toEqual(['2@4', '3@0']);
    const left = (fake.readGpus()[0]?.migs ?? []).flatMap((m) => (m === undefined ? [] : [m.uuid]));
    expect(left).toHaveLength(2);
    expect(left).not.toContain(aUuid);
    expect((await get('pod', 'whole')).spec.nodeName).toBeUndefined();
  });
});
