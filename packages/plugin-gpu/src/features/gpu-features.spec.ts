import type { SysfsFixture } from '@kdp/topology/testing';
import { planResources } from '../resources/plan-resources';
import { scanGpus } from '../scan/scan-gpus';
import { fixtureHost, gpuConfig } from '../testing/fixture-devices';
import { AMD_GPUS, buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from '../testing/machines';
import { gpuFeatures, readGpuFeatures } from './gpu-features';

let fixture: SysfsFixture | undefined;
afterEach(() => fixture?.remove());

/** The labels of a fixture machine under a configuration, as serve would write them. */
async function labelsOf(machine: SysfsFixture, input: unknown = {}) {
  fixture = machine;
  const host = fixtureHost(machine);
  const config = gpuConfig(input);
  return readGpuFeatures(planResources(await scanGpus(host), config), { host, config });
}

describe('GPU node feature labels', () => {
  it('NVIDIA, single MIG strategy: GFD names; the MIG devices and whole GPUs of nvidia.com/gpu', async () => {
    // 3 × H100 and an A100 in MIG mode with two instances.
    expect(await labelsOf(buildNvidiaMachine(), { nvidia: { migStrategy: 'single' } })).toEqual({
      'nvidia.com/gpu.count': '5',
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'nvidia.com/gpu.replicas': '1',
      'nvidia.com/gpu.sharing-strategy': 'none',
      'nvidia.com/mig.strategy': 'single',
      'nvidia.com/mig.capable': 'true',
    });
  });

  it('NVIDIA time-sliced: -SHARED unless renamed, replicas, physical GPU count', async () => {
    const shared = await labelsOf(buildNvidiaMachine(), { sharing: { replicas: 4 } });
    expect(shared).toMatchObject({
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3-SHARED',
      'nvidia.com/gpu.replicas': '4',
      'nvidia.com/gpu.sharing-strategy': 'time-slicing',
    });
    fixture?.remove();
    const renamed = await labelsOf(buildNvidiaMachine(), { sharing: { replicas: 4, renameByDefault: true } });
    expect(renamed['nvidia.com/gpu.product']).toBe('NVIDIA-H100-80GB-HBM3');
  });

  it('NVIDIA, mixed MIG strategy: a count and product per nvidia.com/mig-<profile> resource', async () => {
    fixture = buildNvidiaMachine();
    const config = gpuConfig({ nvidia: { migStrategy: 'mixed' } });
    const set = planResources(await scanGpus(fixtureHost(fixture)), config);
    // The MIG devices as the mixed strategy names them (profile names come from NVML).
    const devices = set.resources.flatMap((r) => r.devices);
    const mig = devices.filter((d) => String(d.id).startsWith('MIG-'));
    const labels = gpuFeatures(
      {
        resources: [
          { name: 'nvidia.com/gpu', devices: devices.filter((d) => !mig.includes(d)) },
          { name: 'nvidia.com/mig-3g.40gb', devices: mig },
        ],
      },
      config,
      { vramBytes: new Map(), pciClass: new Map() },
    );
    expect(labels).toMatchObject({
      'nvidia.com/gpu.count': '4',
      'nvidia.com/mig.strategy': 'mixed',
      'nvidia.com/mig-3g.40gb.count': '2',
      'nvidia.com/mig-3g.40gb.product': 'NVIDIA-A100-SXM4-80GB-MIG-3g.40gb',
    });
  });

  it('AMD: ROCm node labeller names, VRAM from sysfs, partition modes; garbage VRAM is left out', async () => {
    const machine = buildAmdMachine(); // 4 × MI210
    const addresses = Object.values(AMD_GPUS);
    addresses.forEach((address, i) => {
      const dir = `bus/pci/devices/${address}`;
      machine.write(`${dir}/mem_info_vram_total`, i === 3 ? 'lots\n' : '68702699520\n');
      machine.write(`${dir}/current_compute_partition`, 'SPX\n');
      machine.write(`${dir}/current_memory_partition`, 'NPS1\n');
      machine.write(`${dir}/available_compute_partition`, 'SPX,DPX,QPX,CPX\n');
      machine.write(`${dir}/available_memory_partition`, 'NPS1,NPS4\n');
    });
    expect(await labelsOf(machine)).toEqual({
      'amd.com/gpu.device-id': '740f',
      'amd.com/gpu.product-name': 'AMD_Instinct_MI210',
      'amd.com/gpu.vram': '64G',
      'amd.com/compute-memory-partition': 'spx_nps1',
      'amd.com/compute-partitioning-supported': 'true',
      'amd.com/memory-partitioning-supported': 'true',
      'amd.com/gpu.count': '4',
    });
  });

  it('AMD without partitions and with different VRAM sizes: counted per value', async () => {
    const machine = buildAmdMachine();
    Object.values(AMD_GPUS).forEach((address, i) =>
      machine.write(
        `bus/pci/devices/${address}/mem_info_vram_total`,
        i === 0 ? '34359738368\n' : '68702699520\n',
      ),
    );
    expect(await labelsOf(machine)).toMatchObject({
      'amd.com/gpu.vram.32G': '1',
      'amd.com/gpu.vram.64G': '3',
      'amd.com/compute-partitioning-supported': 'false',
      'amd.com/memory-partitioning-supported': 'false',
    });
  });

  it('Intel: its NFD rules names (class-device present and count), and a count per resource', async () => {
    expect(await labelsOf(buildIntelMachine())).toEqual({
      'gpu.intel.com/device-id.0300-a7a0.present': 'true',
      'gpu.intel.com/device-id.0300-a7a0.count': '1',
      'gpu.intel.com/device-id.0380-56c0.present': 'true',
      'gpu.intel.com/device-id.0380-56c0.count': '1',
      'gpu.intel.com/device-id.0300-e20b.present': 'true',
      'gpu.intel.com/device-id.0300-e20b.count': '1',
      'gpu.intel.com/i915.count': '2',
      'gpu.intel.com/xe.count': '1',
    });
  });
});
