import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginDevice, ResourceDraHooks } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import { loadNvmlPartitions } from '../nvml/nvml-partitions';
import type { GpuPayload } from '../resources/gpu-payload';
import { migMinor } from '../testing/driver-files';
import { buildFakeNvml, type FakeNvml, type FakeNvmlGpu } from '../testing/fake-nvml';
import { fixtureDevices, fixtureHost, gpuConfig } from '../testing/fixture-devices';
import { buildNvidiaServer, nvidiaServerUuid } from '../testing/nvidia-server';
import { migDraHooks } from './mig-dra-hooks';

const UUID = nvidiaServerUuid(0);
const GPUS: FakeNvmlGpu[] = [{ uuid: UUID, memoryMiB: 81_559, migMode: true }];

describe('migDraHooks (fake NVML)', () => {
  let fixture: SysfsFixture;
  let fake: FakeNvml;
  let hooks: ResourceDraHooks<GpuPayload>;
  let pool: readonly PluginDevice<GpuPayload>[];
  const problems: string[] = [];
  let changes = 0;
  const byId = (id: string): PluginDevice<GpuPayload> => {
    const found = pool.find((d) => d.id === id);
    if (found === undefined) throw new Error(`no device ${id}`);
    return found;
  };
  const prepare = (id: string) =>
    hooks.prepare?.({
      resource: 'nvidia.com/gpu',
      devices: [byId(id)],
      claimUid: 'uid-1',
      signal: new AbortController().signal,
    });
  const instances = () =>
    (fake.readGpus()[0]?.gpuInstances ?? []).map((gi) => `${gi.id}:${gi.profile}@${gi.start}`);

  beforeAll(async () => {
    fixture = buildNvidiaServer(1);
    fake = buildFakeNvml(mkdtempSync(join(fixture.base, 'nvml-')), { gpus: GPUS });
    const load = loadNvmlPartitions(fake.library);
    if (!load.ok) throw new Error(load.reason);
    hooks = migDraHooks({
      nvml: () => load.partitions,
      host: fixtureHost(fixture),
      config: gpuConfig(),
      onProblem: (uuid, problem) => problems.push(`${uuid}: ${problem}`),
      onChanged: () => void changes++,
    });
    pool = hooks.pool?.(await fixtureDevices(fixture, gpuConfig())).devices ?? [];
  });
  afterAll(() => fixture.remove());
  beforeEach(() => fake.setGpus(GPUS));

  it('publishes the partitions NVML reports for the GPU', () => {
    expect(pool.length).toBe(1 + 7 + 3 + 2 + 1 + 1 + 7 + 4);
    expect(problems).toEqual([]);
  });

  it('prepare creates the instance and hands over the GPU node, its capability nodes and its UUID', async () => {
    const [allocation] = (await prepare('gpu-0-mig-3g40gb-4')) ?? [];
    expect(instances()).toEqual(['1:2@4']);
    const uuid = fake.readGpus()[0]?.migs?.[0]?.uuid;
    expect(uuid).toMatch(/^MIG-/);
    expect(allocation?.envs).toEqual({ KDP_MIG_UUID: uuid });
    expect(allocation?.devices?.map((d) => d.containerPath).sort()).toEqual(
      [
        '/dev/nvidia0',
        '/dev/nvidiactl',
        '/dev/nvidia-uvm',
        '/dev/nvidia-uvm-tools',
        '/dev/nvidia-modeset',
        `/dev/nvidia-caps/nvidia-cap${migMinor(0, 1)}`,
        `/dev/nvidia-caps/nvidia-cap${migMinor(0, 1, 0)}`,
      ].sort(),
    );
  });

  it('is idempotent: prepared again (a plugin restart) it reuses the instance; after a reboot it makes it anew', async () => {
    const [first] = (await prepare('gpu-0-mig-1g10gb-2')) ?? [];
    const before = changes;
    const [again] = (await prepare('gpu-0-mig-1g10gb-2')) ?? [];
    expect(again).toEqual(first);
    expect(changes).toBe(before); // nothing made: no new scan
    expect(instances()).toEqual(['1:0@2']);
    fake.setGpus(GPUS); // a reboot: no MIG instance survives it
    const [rebooted] = (await prepare('gpu-0-mig-1g10gb-2')) ?? [];
    expect(rebooted?.envs).toEqual(first?.envs);
    expect(instances()).toEqual(['1:0@2']);
  });

  it('an overlapping partition fails with NVML’s error; the whole GPU is handed over by the allocate hook', async () => {
    await prepare('gpu-0-mig-3g40gb-0');
    await expect(prepare('gpu-0-mig-1g10gb-1')).rejects.toThrow(
      'nvmlDeviceCreateGpuInstanceWithPlacement returned 23',
    );
    expect(await prepare(UUID)).toEqual([undefined]);
  });

  it('unprepare destroys the instance, and is a no-op when it is gone', async () => {
    await prepare('gpu-0-mig-7g80gb-0');
    const unprepare = () =>
      hooks.unprepare?.({
        resource: 'nvidia.com/gpu',
        devices: [byId('gpu-0-mig-7g80gb-0'), byId(UUID)],
        claimUid: 'uid-1',
      });
    const before = changes;
    await unprepare();
    expect(instances()).toEqual([]);
    expect(fake.readGpus()[0]?.migs).toEqual([]);
    await unprepare();
    expect(changes).toBe(before + 1);
  });
});
