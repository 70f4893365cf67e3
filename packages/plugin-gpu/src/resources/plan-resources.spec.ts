import type { ResourceSpec } from '@kdp/core/plugin';
import type { SysfsFixture } from '@kdp/topology/testing';
import { scanGpus } from '../scan/scan-gpus';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  fixtureHost,
  gpuConfig,
  NVIDIA_UUIDS,
} from '../testing';
import { planResources, type GpuPayload } from './plan-resources';

describe('planResources', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const plan = async (build: () => SysfsFixture, input: unknown = {}) => {
    const fixture = build();
    fixtures.push(fixture);
    const set = planResources(await scanGpus(fixtureHost(fixture)), gpuConfig(input));
    return set.resources as readonly ResourceSpec<GpuPayload>[];
  };

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
});
