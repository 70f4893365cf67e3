import type { SysfsFixture } from '@kdp/topology/testing';
import { fixtureHost } from '../testing/fixture-devices';
import { buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from '../testing/machines';
import { gpuChangeProbe } from './gpu-change-probe';
import { scanGpus } from './scan-gpus';

describe('gpuChangeProbe', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const probeOf = async (build: () => SysfsFixture) => {
    const fixture = build();
    fixtures.push(fixture);
    return gpuChangeProbe(await scanGpus(fixtureHost(fixture)));
  };

  it('NVIDIA: PCI list, every candidate’s driver link (the unbound one too), procfs GPUs and MIG directories', async () => {
    const probe = await probeOf(buildNvidiaMachine);
    expect(probe.sysfs).toEqual({
      list: ['bus/pci/devices'],
      links: ['0000:03:00.0', '0000:04:00.0', '0000:83:00.0', '0000:86:00.0', '0000:87:00.0']
        .map((a) => `bus/pci/devices/${a}/driver`)
        .sort(),
      read: [],
    });
    expect(probe.procfs?.list).toEqual([
      'driver/nvidia/gpus',
      ...[0, 1, 2].map((minor) => `driver/nvidia/capabilities/gpu${minor}/mig`),
      'driver/nvidia/capabilities/gpu3/mig',
      'driver/nvidia/capabilities/gpu3/mig/gi1',
      'driver/nvidia/capabilities/gpu3/mig/gi2',
    ]);
    expect(probe.devfs).toBeUndefined();
  });

  it('AMD: DRM directories and the KFD topology nodes; no procfs', async () => {
    const probe = await probeOf(buildAmdMachine);
    const amd = [
      '0000:03:00.0',
      '0000:04:00.0',
      '0000:83:00.0',
      '0000:84:00.0',
      '0000:85:00.0',
      '0000:86:00.0',
    ];
    expect(probe.sysfs?.list).toEqual([
      'bus/pci/devices',
      ...amd.map((a) => `bus/pci/devices/${a}/drm`),
      'class/kfd',
      'class/kfd/kfd/topology/nodes',
    ]);
    expect(probe.sysfs?.links).toEqual(amd.map((a) => `bus/pci/devices/${a}/driver`));
    expect(probe.sysfs?.read).toEqual(
      amd.flatMap((a) => [
        `bus/pci/devices/${a}/current_compute_partition`,
        `bus/pci/devices/${a}/current_memory_partition`,
      ]),
    );
    expect(probe.procfs).toBeUndefined();
  });

  it('Intel: an SR-IOV physical function’s sriov_numvfs is read', async () => {
    const probe = await probeOf(() => {
      const fixture = buildIntelMachine();
      fixture.addPciDevice({
        address: '0000:85:00.0',
        parent: '0000:80:01.0',
        vendor: '0x8086',
        device: '0x56c0',
        class: '0x038000',
        driver: 'i915',
        numaNode: 1,
        sriovTotalVfs: 16,
      });
      return fixture;
    });
    expect(probe.sysfs?.read).toEqual(['bus/pci/devices/0000:85:00.0/sriov_numvfs']);
  });
});
