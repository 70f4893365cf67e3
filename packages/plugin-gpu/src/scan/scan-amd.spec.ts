import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from '../plugin';
import { resourceNameOf } from '../resources/resource-names';
import { buildMi300xMachine, MI300X_GPUS, mi300xPartitionId } from '../testing/amd-machines';
import { fixtureHost, gpuConfig, rootFlags } from '../testing/fixture-devices';
import { scanGpus } from './scan-gpus';

const PARTITIONS = [0, 1, 2, 3, 4, 5, 6, 7];

/** `discover --output json` on a fixture, with a configuration file when given. */
async function discover(fixture: SysfsFixture, config?: unknown): Promise<DiscoverDocument> {
  const extra: string[] = [];
  if (config !== undefined) {
    const path = join(fixture.base, 'config.json');
    writeFileSync(path, JSON.stringify(config));
    extra.push('--config', path);
  }
  const run = await runPluginCommand(gpuPlugin, [
    'discover',
    ...rootFlags(fixture),
    '--output',
    'json',
    ...extra,
  ]);
  if (run.code !== 0) throw new Error(`discover exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as DiscoverDocument;
}

const nodesOf = (device: { deviceSpecs: readonly { hostPath: string }[] }) =>
  device.deviceSpecs.map((spec) => spec.hostPath);

describe('AMD MI300X (PCI class 0x1200)', () => {
  let spx: SysfsFixture;
  let cpx: SysfsFixture;
  beforeAll(() => {
    spx = buildMi300xMachine();
    cpx = buildMi300xMachine({ modes: { compute: 'CPX', memory: 'NPS4' } });
  }, 60_000);
  afterAll(() => [spx, cpx].forEach((fixture) => fixture.remove()));

  it('SPX: discover lists every GPU by PCI address, on its NUMA node, XGMI peers and partition modes', async () => {
    const doc = await discover(spx);
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['amd.com/gpu']);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.map((d) => [d.id, d.health, d.numaNodes])).toEqual(
      MI300X_GPUS.map((address, gpu) => [address, 'Healthy', [gpu < 4 ? 0 : 1]]),
    );
    expect(nodesOf(devices[1] as (typeof devices)[number])).toEqual([
      '/dev/kfd',
      '/dev/dri/card8',
      '/dev/dri/renderD136',
    ]);
    expect(devices[0]?.attributes).toMatchObject({
      model: 'AMD Instinct MI300X',
      device: '0x74a1',
      computePartition: 'SPX',
      memoryPartition: 'NPS1',
      availableComputePartitions: 'SPX,DPX,QPX,CPX',
      availableMemoryPartitions: 'NPS1,NPS4',
      xgmiPeers: MI300X_GPUS.slice(1).join(','),
    });
    // The 56 preallocated amdgpu_xcp devices are not partitions in SPX: KFD lists none of their render nodes.
    expect(doc.excluded).toEqual([]);
    expect(doc.warnings).toEqual([]);
  });

  it('CPX/NPS4: every partition a device (ROCm IDs), its own card and render node, its GPU’s NUMA node', async () => {
    const doc = await discover(cpx);
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['amd.com/gpu']);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.map((d) => d.id)).toEqual(
      MI300X_GPUS.flatMap((_, gpu) => PARTITIONS.map((k) => mi300xPartitionId(gpu, k))),
    );
    devices.forEach((device, i) => {
      const gpu = Math.floor(i / 8);
      expect(device.pciAddress).toBe(MI300X_GPUS[gpu]);
      expect(device.numaNodes).toEqual([gpu < 4 ? 0 : 1]);
      expect(nodesOf(device)).toEqual(['/dev/kfd', `/dev/dri/card${i}`, `/dev/dri/renderD${128 + i}`]);
      expect(device.attributes).toMatchObject({ partition: String(i % 8), computePartition: 'CPX' });
    });
    expect(new Set(devices.map((d) => nodesOf(d)[2])).size).toBe(64);
    expect(devices[9]?.attributes.xgmiPeers?.split(',')).toEqual(MI300X_GPUS.filter((_, gpu) => gpu !== 1));
    expect(doc.excluded).toEqual([]);
  });

  it('resourceNamingStrategy mixed: one resource per partition mode, as ROCm (amd.com/cpx_nps4)', async () => {
    const mixed = { amd: { resourceNamingStrategy: 'mixed' } };
    const cpxDoc = await discover(cpx, mixed);
    expect(cpxDoc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['amd.com/cpx_nps4', 64],
    ]);
    const spxDoc = await discover(spx, mixed);
    expect(spxDoc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['amd.com/spx_nps1', 8],
    ]);
    const single = await discover(cpx, { amd: { resourceNamingStrategy: 'single' } });
    expect(single.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([['amd.com/gpu', 64]]);
  });

  describe('on a node with garbage and strangers', () => {
    let node: SysfsFixture;
    beforeAll(() => {
      node = buildMi300xMachine();
      const gpu = (address: string, vendor: string, klass: string, driver?: string) =>
        node.addPciDevice({
          address,
          vendor,
          device: '0x74a1',
          class: klass,
          numaNode: 1,
          ...(driver !== undefined ? { driver } : {}),
        });
      gpu('0000:f5:00.0', '0x1002', '0x120000');
      gpu('0000:f6:00.0', '0x1002', '0x120000', 'vfio-pci');
      gpu('0000:f7:00.0', '0x1da3', '0x120000', 'habanalabs');
      gpu('0000:f8:00.0', '0x1002', '0x0b4000', 'amdgpu');
      const dir = (address: string) => node.pciDir(address);
      node.write(`${dir(MI300X_GPUS[1])}/current_compute_partition`, 'banana\n');
      node.write(`${dir(MI300X_GPUS[2])}/current_memory_partition`, '');
      node.write(`${dir(MI300X_GPUS[2])}/available_memory_partition`, 'NPS1, NPS99\n');
      node.write(`${dir(MI300X_GPUS[3])}/current_compute_partition`, 'DPX\n');
      // A second KFD node on GPU 0 (partition 1) whose render minor no DRM device has.
      const kfd = 'devices/virtual/kfd/kfd/topology/nodes/10';
      node.write(`${kfd}/gpu_id`, '777\n');
      node.write(`${kfd}/properties`, `location_id ${(0x05 << 8) | 1}\ndomain 0\ndrm_render_minor 250\n`);
    }, 60_000);
    afterAll(() => node.remove());

    it('class 0x1200 of AMD not on amdgpu is excluded with the reason; amdgpu makes a GPU of any class', async () => {
      const scan = await scanGpus(fixtureHost(node));
      expect(scan.excluded).toEqual(
        expect.arrayContaining([
          {
            path: '/sys/bus/pci/devices/0000:f5:00.0',
            reason: 'no driver bound (amdgpu is not loaded for this GPU)',
          },
          { path: '/sys/bus/pci/devices/0000:f6:00.0', reason: 'bound to vfio-pci, not amdgpu' },
          { path: '/sys/bus/pci/devices/0000:f8:00.0', reason: 'no KFD topology node lists this GPU' },
        ]),
      );
      expect(scan.candidates.map((c) => c.address)).not.toContain('0000:f7:00.0');
    });

    it('garbage partition files: a warning each, the GPU still advertised with that mode unknown', async () => {
      const scan = await scanGpus(fixtureHost(node));
      expect(scan.gpus.filter((g) => g.id === g.pciAddress).map((g) => g.id)).toEqual([...MI300X_GPUS]);
      const byId = new Map(scan.gpus.map((g) => [g.id, g]));
      expect(byId.get(MI300X_GPUS[1])?.partitionModes).toEqual({ memory: 'NPS1' });
      expect(byId.get(MI300X_GPUS[2])?.partitionModes).toEqual({ compute: 'SPX' });
      expect(byId.get(MI300X_GPUS[2])?.attributes.availableMemoryPartitions).toBeUndefined();
      expect(scan.warnings).toEqual(
        expect.arrayContaining([
          `${MI300X_GPUS[1]}: current_compute_partition "banana" is not SPX, DPX, TPX, QPX or CPX; left unknown`,
          `${MI300X_GPUS[2]}: current_memory_partition "" is not NPS1, NPS2, NPS4 or NPS8; left unknown`,
          `${MI300X_GPUS[2]}: available_memory_partition "NPS1, NPS99" is not a list of NPS1, NPS2, NPS4 or NPS8; left unknown`,
          expect.stringMatching(
            /^AMD GPUs are in different partition modes \(spx_nps1: .*; dpx_nps1: 0000:65:00\.0\)/,
          ),
        ]),
      );
      const mixed = gpuConfig({ amd: { resourceNamingStrategy: 'mixed' } });
      expect(scan.gpus.filter((g) => g.id === g.pciAddress).map((g) => resourceNameOf(g, mixed))).toEqual([
        'amd.com/spx_nps1',
        'amd.com/gpu',
        'amd.com/gpu',
        'amd.com/dpx_nps1',
        'amd.com/spx_nps1',
        'amd.com/spx_nps1',
        'amd.com/spx_nps1',
        'amd.com/spx_nps1',
      ]);
    });

    it('a KFD partition without its DRM device is excluded; the GPU’s other partition stays', async () => {
      const scan = await scanGpus(fixtureHost(node));
      expect(scan.excluded).toContainEqual({
        path: '/sys/class/kfd/kfd/topology/nodes/10',
        reason: `compute partition of ${MI300X_GPUS[0]}: no amdgpu_xcp platform device or DRM node has render minor 250`,
      });
      expect(scan.gpus.find((g) => g.id === MI300X_GPUS[0])?.deviceNodes).toEqual([
        '/dev/dri/card0',
        '/dev/dri/renderD128',
      ]);
    });
  });
});
