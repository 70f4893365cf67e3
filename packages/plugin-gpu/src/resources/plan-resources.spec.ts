import type { ResourceSpec } from '@kdp/core/plugin';
import type { SysfsFixture } from '@kdp/topology/testing';
import { scanGpus } from '../scan/scan-gpus';
import { fixtureHost, gpuConfig } from '../testing/fixture-devices';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  NVIDIA_UUIDS,
} from '../testing/machines';
import type { GpuPayload } from './gpu-payload';
import { planResources } from './plan-resources';

describe('planResources', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const plan = async (build: () => SysfsFixture, input: unknown = {}) => {
    const fixture = build();
    fixtures.push(fixture);
    const set = planResources(await scanGpus(fixtureHost(fixture)), gpuConfig(input));
    return set.resources as readonly ResourceSpec<GpuPayload>[];
  };
  const planSet = async (input: unknown) => {
    const fixture = buildNvidiaMachine();
    fixtures.push(fixture);
    return planResources(await scanGpus(fixtureHost(fixture)), gpuConfig(input));
  };
  /** Resource name → device IDs. */
  const ids = (resources: readonly ResourceSpec<GpuPayload>[]) =>
    Object.fromEntries(resources.map((r) => [r.name, r.devices.map((d) => d.id)]));
  const [u0, u1, u2, u3] = Object.values(NVIDIA_UUIDS) as [string, string, string, string];
  const migs = [`MIG-${u3}/1/0`, `MIG-${u3}/2/0`] as const;
  const times = (id: string, n: number) => Array.from({ length: n }, (_, i) => `${id}::${i}`);

  it('NVIDIA: envvar by default with NVIDIA_VISIBLE_DEVICES, one CDI device per physical GPU', async () => {
    const [gpu] = await plan(buildNvidiaMachine, { sharing: { replicas: 2 } });
    expect(gpu?.name).toBe('nvidia.com/gpu');
    expect(gpu?.deviceListStrategy).toEqual(['envvar']);
    // The default kind from nvidia.com/gpu is NVIDIA's own, k8s.device-plugin.nvidia.com/gpu.
    expect(gpu?.cdi?.kind).toBeUndefined();
    const devices = gpu?.devices ?? [];
    const uuid = NVIDIA_UUIDS['0000:04:00.0'];
    const replicas = devices.filter((d) => d.id.startsWith(uuid));
    expect(replicas.map((d) => d.id)).toEqual([`${uuid}::0`, `${uuid}::1`]);
    expect(gpu?.deviceListEnv?.(replicas)).toEqual({ NVIDIA_VISIBLE_DEVICES: uuid });
    expect(replicas.map((d) => gpu?.cdi?.deviceName?.(d))).toEqual([uuid, uuid]);
    const mig = devices.find((d) => d.id.startsWith('MIG-'));
    expect(mig && gpu?.cdi?.deviceName?.(mig)).toBe(`MIG-${NVIDIA_UUIDS['0000:86:00.0']}:1:0`);
  });

  it('NVIDIA: the configured strategies, device-specs added by passDeviceSpecs', async () => {
    const [gpu] = await plan(buildNvidiaMachine, {
      nvidia: { deviceListStrategy: ['cdi'], passDeviceSpecs: true },
    });
    expect(gpu?.deviceListStrategy).toEqual(['cdi', 'device-specs']);
  });

  it('AMD and Intel: the runtime default (device specs), no device-list variable, PCI address as CDI name', async () => {
    const amd = await plan(buildAmdMachine);
    const intel = await plan(buildIntelMachine);
    for (const resource of [...amd, ...intel]) {
      expect(resource.deviceListStrategy).toBeUndefined();
      expect(resource.deviceListEnv).toBeUndefined();
    }
    const [first] = amd[0]?.devices ?? [];
    expect(first && amd[0]?.cdi?.deviceName?.(first)).toBe(AMD_GPUS.a);
  });

  it('every resource with more than one device answers GetPreferredAllocation', async () => {
    const all = [
      ...(await plan(buildNvidiaMachine)),
      ...(await plan(buildAmdMachine)),
      ...(await plan(buildIntelMachine)),
      ...(await plan(buildNvidiaMachine, { sharing: { replicas: 3 } })),
    ];
    const several = all.filter((resource) => resource.devices.length > 1);
    expect(several.map((r) => r.name)).toEqual([
      'nvidia.com/gpu',
      'amd.com/gpu',
      'gpu.intel.com/i915',
      'nvidia.com/gpu',
    ]);
    for (const resource of several) expect(resource.preferredAllocation).toBeInstanceOf(Function);
  });

  describe('time-slicing (NVIDIA sharing.timeSlicing semantics)', () => {
    it('a resource entry replicates every device of its resource: <id>::<n>', async () => {
      const [gpu, ...rest] = await plan(buildNvidiaMachine, {
        sharing: { resources: [{ name: 'nvidia.com/gpu', replicas: 3 }] },
      });
      expect(rest).toEqual([]);
      expect(gpu?.devices.map((d) => d.id)).toEqual(
        [u0, u1, u2, ...migs].flatMap((id) => times(id as string, 3)),
      );
      expect(gpu?.devices.map((d) => d.payload?.replica)).toEqual(
        Array.from({ length: 15 }, (_, i) => i % 3),
      );
    });

    it('renameByDefault advertises the replicas as <name>.shared, nothing left under the name', async () => {
      const resources = await plan(buildNvidiaMachine, {
        sharing: { renameByDefault: true, resources: [{ name: 'nvidia.com/gpu', replicas: 2 }] },
      });
      expect(resources.map((r) => r.name)).toEqual(['nvidia.com/gpu.shared']);
      expect(resources[0]?.devices).toHaveLength(10);
      // The global replica count is renamed the same way.
      const global = await plan(buildNvidiaMachine, { sharing: { renameByDefault: true, replicas: 2 } });
      expect(global.map((r) => r.name)).toEqual(['nvidia.com/gpu.shared']);
    });

    it('devices selects GPUs by index, MIG index, UUID or PCI address; the others stay whole under the name', async () => {
      const set = await planSet({
        sharing: {
          resources: [
            {
              name: 'nvidia.com/gpu',
              replicas: 2,
              rename: 'example.com/shared',
              devices: [0, '3:1', u2, '9'],
            },
          ],
        },
      });
      expect(ids(set.resources as ResourceSpec<GpuPayload>[])).toEqual({
        'example.com/shared': [...times(u0, 2), ...times(u2, 2), ...times(migs[1] as string, 2)],
        'nvidia.com/gpu': [u1, migs[0]],
      });
      expect(set.warnings).toContain(
        'sharing.resources[0].devices[3]: "9" matches no device of nvidia.com/gpu',
      );
      const byAddress = await planSet({
        sharing: { resources: [{ name: 'nvidia.com/gpu', replicas: 2, devices: ['0000:04:00.0'] }] },
      });
      expect(ids(byAddress.resources as ResourceSpec<GpuPayload>[])).toEqual({
        'nvidia.com/gpu': [u0, ...times(u1, 2), u2, ...migs],
      });
    });

    it('entries win over the global replicas for their resource; replicas 1 keeps devices whole', async () => {
      const resources = await plan(buildNvidiaMachine, {
        resourceNames: { nvidiaMig: 'nvidia.com/mig' },
        sharing: {
          replicas: 4,
          resources: [{ name: 'nvidia.com/gpu', replicas: 1, rename: 'example.com/unused' }],
        },
      });
      expect(ids(resources)).toEqual({
        'nvidia.com/gpu': [u0, u1, u2],
        'nvidia.com/mig': migs.flatMap((id) => times(id, 4)),
      });
    });
  });

  describe('deviceIDStrategy', () => {
    it('uuid (default): NVIDIA_VISIBLE_DEVICES and CDI names hold UUIDs and MIG IDs', async () => {
      const [gpu] = await plan(buildNvidiaMachine);
      const devices = gpu?.devices ?? [];
      const chosen = devices.filter((d) => d.id === u2 || d.id === migs[1]);
      expect(gpu?.deviceListEnv?.(chosen)).toEqual({ NVIDIA_VISIBLE_DEVICES: `${u2},${migs[1]}` });
    });

    it('index: advertised IDs stay UUIDs; NVIDIA_VISIBLE_DEVICES and CDI names are nvidia-smi indexes', async () => {
      const [gpu] = await plan(buildNvidiaMachine, {
        nvidia: { deviceIDStrategy: 'index' },
        sharing: { replicas: 2 },
      });
      const devices = gpu?.devices ?? [];
      expect(devices[0]?.id).toBe(`${u0}::0`);
      const chosen = devices.filter((d) =>
        [`${u2}::0`, `${u2}::1`, `${migs[1]}::0`, `${u0}::1`].includes(d.id),
      );
      expect(gpu?.deviceListEnv?.(chosen)).toEqual({ NVIDIA_VISIBLE_DEVICES: '0,2,3:1' });
      expect(chosen.map((d) => gpu?.cdi?.deviceName?.(d))).toEqual(['0', '2', '2', '3:1']);
    });

    it('leaves AMD and Intel CDI names as their PCI addresses', async () => {
      const [amd] = await plan(buildAmdMachine, { nvidia: { deviceIDStrategy: 'index' } });
      const [first] = amd?.devices ?? [];
      expect(first && amd?.cdi?.deviceName?.(first)).toBe(AMD_GPUS.a);
    });
  });
});
