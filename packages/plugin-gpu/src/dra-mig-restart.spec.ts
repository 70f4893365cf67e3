import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCdiDevices } from '@kdp/core/testing';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { loadNvmlMig } from './nvml/nvml-mig';
import { loadNvmlPartitions } from './nvml/nvml-partitions';
import { createGpuPlugin } from './plugin';
import { buildFakeNvml, type FakeNvml, type FakeNvmlGpu } from './testing/fake-nvml';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaServer, nvidiaServerUuid } from './testing/nvidia-server';

jest.setTimeout(120_000);

const NODE = 'node-a';
const DRIVER = 'gpu.kdp.dev';
const POOL = `${NODE}/nvidia.com/gpu`;
const DEVICE = 'gpu-0-mig-3g40gb-4';
const GPUS: FakeNvmlGpu[] = [{ uuid: nvidiaServerUuid(0), memoryMiB: 81_559, migMode: true }];

// --dra-dynamic-mig across a driver restart and a node reboot, against kubelet-sim's DRA side: the MIG instance of a
// prepared claim is neither made twice nor lost; after the reboot (which destroys MIG instances) it is made again.
describe('gpu-device-plugin --dra-dynamic-mig: restart and reboot', () => {
  let base: string;
  let fixture: SysfsFixture;
  let fake: FakeNvml;
  let api: ApiServer;
  let sim: KubeletSim;
  let node: DraTestNode;
  const instances = () => (fake.readGpus()[0]?.gpuInstances ?? []).map((gi) => `${gi.profile}@${gi.start}`);
  const migUuids = () => (fake.readGpus()[0]?.migs ?? []).flatMap((m) => (m === undefined ? [] : [m.uuid]));

  beforeAll(async () => {
    fixture = buildNvidiaServer(1);
    base = mkdtempSync(join(tmpdir(), 'kdp-mig-restart-'));
    fake = buildFakeNvml(mkdtempSync(join(base, 'nvml-')), { gpus: GPUS });
    api = await createApiServer({ nodes: [NODE] });
    node = createDraTestNode({
      plugin: createGpuPlugin({
        xidSource: () => undefined,
        nvmlMig: () => loadNvmlMig({ library: fake.library }),
        nvmlPartitions: () => loadNvmlPartitions(fake.library),
      }),
      dir: base,
      flags: [...rootFlags(fixture), '--poll-interval', '1h', '--dra-dynamic-mig'],
      procRoot: fixture.procRoot,
    });
    sim = await createKubeletSim({
      dir: node.kubeletDir,
      pluginsRegistryDir: node.pluginsRegistryDir,
      dra: { pluginsRegistryDir: node.pluginsRegistryDir, apiServer: { url: api.url }, nodeName: NODE },
    });
    const registered = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
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

  it('a claim for a MIG placement: made once across a restart, made again after a reboot, destroyed at the end', async () => {
    const created = api.store.create(
      'resourceclaims',
      {
        metadata: { name: 'mig' },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: DRIVER } }] } },
      },
      'default',
    );
    api.store.update(
      'resourceclaims',
      {
        ...created,
        status: {
          allocation: {
            devices: { results: [{ request: 'gpu', driver: DRIVER, pool: POOL, device: DEVICE }] },
            nodeSelector: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] },
              ],
            },
          },
          reservedFor: [{ resource: 'pods', name: 'pod-mig', uid: 'uid-mig' }],
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
    const pod = { name: 'pod-mig', uid: 'uid-mig' };
    const envOf = (ids: readonly string[]) => resolveCdiDevices(node.cdiDir, ids).env;
    const [first] = await sim.prepareClaims(pod, ['mig']);
    const ids = first?.devices.flatMap((d) => d.cdiDeviceIds) ?? [];
    const [uuid] = migUuids();
    expect(instances()).toEqual(['2@4']);
    expect(envOf(ids)).toContain(`KDP_MIG_UUID_${DEVICE.toUpperCase().replaceAll('-', '_')}=${uuid}`);

    // The driver restarts: the kubelet prepares the claim again, the same instance answers.
    const back = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
    await node.restart();
    await back;
    const [again] = await sim.prepareClaims(pod, ['mig']);
    expect(again?.devices).toEqual(first?.devices);
    expect(instances()).toEqual(['2@4']);
    expect(migUuids()).toEqual([uuid]);

    // The node reboots (MIG instances do not survive it): the kubelet prepares the claim again, the instance is made.
    const rebooted = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
    fake.setGpus(GPUS);
    await node.reboot();
    const prepared = sim.waitFor('dra-prepared', (e) => e.pod === 'pod-mig', 60_000);
    await sim.restart();
    await rebooted;
    const after = (await prepared).claims.find((c) => c.name === 'mig');
    expect(instances()).toEqual(['2@4']);
    expect(migUuids()).toHaveLength(1);
    expect(envOf(after?.devices.flatMap((d) => d.cdiDeviceIds) ?? [])).toContain(
      `KDP_MIG_UUID_${DEVICE.toUpperCase().replaceAll('-', '_')}=${migUuids()[0]}`,
    );

    const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === 'pod-mig', 30_000);
    await sim.deletePod('pod-mig');
    await unprepared;
    expect(instances()).toEqual([]);
  });
});
