import type { ContainerAllocation, PluginDevice } from '../plugin-device';
import { handOver, strategiesOf } from './device-list';

const devices: PluginDevice<string>[] = [
  { id: 'a', health: 'Healthy' },
  { id: 'b', health: 'Healthy' },
];
const allocation: ContainerAllocation = {
  envs: { PCIDEVICE: 'a,b' },
  annotations: { note: 'x' },
  devices: [{ containerPath: '/dev/a', hostPath: '/dev/a' }],
  mounts: [{ containerPath: '/etc/a', hostPath: '/etc/a', readOnly: true }],
};
const listEnv = {
  deviceListEnv: (chosen: readonly PluginDevice<string>[]) => ({
    VISIBLE: chosen.map((d) => d.id).join(','),
  }),
};
const cdiNames = (): string[] => ['k8s.device-plugin.example.com/x=a', 'k8s.device-plugin.example.com/x=b'];

describe('strategiesOf', () => {
  it('takes the flag when given, else the resource default, else device-specs', () => {
    expect([...strategiesOf({ deviceListStrategy: ['envvar'] }, ['cdi'])]).toEqual(['cdi']);
    expect([...strategiesOf({ deviceListStrategy: ['envvar', 'cdi'] }, undefined)]).toEqual([
      'envvar',
      'cdi',
    ]);
    expect([...strategiesOf({}, undefined)]).toEqual(['device-specs']);
  });
});

describe('handOver', () => {
  it('device-specs: nodes and mounts, env and annotations, no CDI names', () => {
    expect(handOver(listEnv, devices, allocation, new Set(['device-specs']), cdiNames)).toEqual({
      envs: { PCIDEVICE: 'a,b' },
      annotations: { note: 'x' },
      devices: allocation.devices,
      mounts: allocation.mounts,
      cdiDevices: [],
    });
  });

  it('cdi alone: only CDI names, plus the env and annotations CDI cannot carry per container', () => {
    expect(handOver(listEnv, devices, allocation, new Set(['cdi']), cdiNames)).toEqual({
      envs: { PCIDEVICE: 'a,b' },
      annotations: { note: 'x' },
      devices: [],
      mounts: [],
      cdiDevices: cdiNames(),
    });
  });

  it("cdi with an annotation key: the names in the CRI field and, comma-separated, as the anchors' annotation", () => {
    const annotated = { ...listEnv, cdi: { annotation: 'cdi.k8s.io/example.com_net-pci' } };
    expect(handOver(annotated, devices, allocation, new Set(['cdi']), cdiNames)).toMatchObject({
      annotations: { note: 'x', 'cdi.k8s.io/example.com_net-pci': cdiNames().join(',') },
      cdiDevices: cdiNames(),
    });
    // No CDI name (device-specs, or none to give): no annotation.
    expect(handOver(annotated, devices, allocation, new Set(['device-specs']), cdiNames).annotations).toEqual(
      {
        note: 'x',
      },
    );
    expect(handOver(annotated, devices, allocation, new Set(['cdi']), () => []).annotations).toEqual({
      note: 'x',
    });
  });

  it('envvar: the device-list variable without nodes; a resource without one falls back to device specs', () => {
    expect(handOver(listEnv, devices, allocation, new Set(['envvar']))).toMatchObject({
      envs: { PCIDEVICE: 'a,b', VISIBLE: 'a,b' },
      devices: [],
      mounts: [],
    });
    expect(handOver({}, devices, allocation, new Set(['envvar']))).toMatchObject({
      envs: { PCIDEVICE: 'a,b' },
      devices: allocation.devices,
    });
    // With cdi beside it, a resource without a variable needs no fallback.
    expect(handOver({}, devices, allocation, new Set(['envvar', 'cdi']), cdiNames)).toMatchObject({
      devices: [],
      cdiDevices: cdiNames(),
    });
  });

  it('several strategies add up; CDI names the hook returned itself are kept once', () => {
    const own = { ...allocation, cdiDevices: ['vendor.com/x=a'] };
    expect(
      handOver(listEnv, devices, own, new Set(['envvar', 'device-specs', 'cdi']), () => [
        'vendor.com/x=a',
        'v.com/y=b',
      ]),
    ).toEqual({
      envs: { PCIDEVICE: 'a,b', VISIBLE: 'a,b' },
      annotations: { note: 'x' },
      devices: allocation.devices,
      mounts: allocation.mounts,
      cdiDevices: ['vendor.com/x=a', 'v.com/y=b'],
    });
  });
});
