import { parseConfigText } from '@kdp/core';
import { createHost } from '@kdp/topology';
import type { SysfsFixture } from '@kdp/topology/testing';
import { rdmaConfigSchema, type RdmaConfig } from '../config';
import { readRdmaInventory } from '../scan/read-rdma-inventory';
import {
  addRdmaDevice,
  createRdmaMachine,
  setPortState,
  UPSTREAM_CONFIG_JSON,
} from '../testing/rdma-machine';
import { planResources, type ResourcePlan } from './plan-resources';

const config = (text: string): RdmaConfig =>
  parseConfigText('c.json', text, rdmaConfigSchema, { unknownKeys: 'warn' }).value;

describe('planResources', () => {
  let fixture: SysfsFixture;
  const plan = async (cfg: RdmaConfig): Promise<ResourcePlan> =>
    planResources(
      cfg,
      await readRdmaInventory({ host: createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot }) }),
    );

  beforeEach(() => {
    fixture = createRdmaMachine();
  });
  afterEach(() => fixture.remove());

  it('runs the upstream sample unchanged: rdmaHcaMax IDs "0".."N-1" with every matched char device, rwm', async () => {
    const result = await plan(config(UPSTREAM_CONFIG_JSON));
    const [a, b] = result.resources;
    expect(a?.name).toBe('rdma/hca_shared_devices_a');
    expect(a?.devices).toHaveLength(1000);
    expect(a?.devices.map((d) => d.id).slice(0, 3)).toEqual(['0', '1', '2']);
    expect(a?.devices[999]?.id).toBe('999');
    // What k8s-rdma-shared-dev-plugin answers for a ConnectX-5 RoCE function (rdmamap: uverbs, umad, issm,
    // rdma_cm; DeviceSpec permissions "rwm", container path = host path).
    expect(a?.devices[0]?.allocation?.devices).toEqual(
      ['uverbs1', 'umad2', 'issm2', 'rdma_cm'].map((name) => ({
        containerPath: `/dev/infiniband/${name}`,
        hostPath: `/dev/infiniband/${name}`,
        permissions: 'rwm',
      })),
    );
    expect(a?.devices[0]?.numaNodes).toEqual([1]);
    expect(a?.devices.every((d) => d.health === 'Healthy')).toBe(true);
    // Resource b also wants interfaces ib0/ib1, which the ConnectX-5 does not have: no devices, as upstream.
    expect(b?.name).toBe('rdma/hca_shared_devices_b');
    expect(b?.devices).toEqual([]);
    expect(result.warnings).toEqual([
      'rdma/hca_shared_devices_b: no RDMA device matches its selectors; it advertises no devices',
    ]);
    expect(result.excluded.map((e) => e.path)).toEqual([
      '/sys/class/infiniband/bnxt_re0',
      '/sys/class/infiniband/hfi1_0',
      '/sys/class/infiniband/irdma0',
      '/sys/class/infiniband/mlx4_0',
    ]);
    expect(result.excluded[1]?.reason).toBe(
      'rdma/hca_shared_devices_a: vendor 8086 not in vendors=[15b3]; rdma/hca_shared_devices_b: vendor 8086 not in vendors=[15b3]',
    );
    expect(result.excluded[3]?.reason).toContain('device ID 1007 not in deviceIDs=[1017]');
  });

  it('shares every HCA of a selector-less resource, with no NUMA node when they span two', async () => {
    const result = await plan(
      config('{"configList":[{"resourceName":"rdma_shared_device_a","rdmaHcaMax":63}]}'),
    );
    const device = result.resources[0]?.devices[0];
    expect(result.resources[0]?.devices).toHaveLength(63);
    expect(device?.numaNodes).toEqual([]);
    expect(device?.payload?.ibdevs).toEqual(['hfi1_0', 'irdma0', 'mlx4_0', 'mlx5_0']);
    expect(device?.allocation?.devices?.map((d) => d.hostPath)).toEqual([
      '/dev/infiniband/uverbs2',
      '/dev/infiniband/umad3',
      '/dev/infiniband/issm3',
      '/dev/hfi1_0',
      '/dev/infiniband/uverbs3',
      '/dev/infiniband/umad4',
      '/dev/infiniband/uverbs0',
      '/dev/infiniband/umad0',
      '/dev/infiniband/issm0',
      '/dev/infiniband/umad1',
      '/dev/infiniband/issm1',
      '/dev/infiniband/uverbs1',
      '/dev/infiniband/umad2',
      '/dev/infiniband/issm2',
      '/dev/infiniband/rdma_cm',
    ]);
  });

  it('exclusive: one device per HCA keyed by PCI address, only its own nodes plus rdma_cm, rw', async () => {
    const result = await plan(config(''));
    const resource = result.resources[0];
    expect(resource?.name).toBe('rdma/hca');
    expect(resource?.devices.map((d) => [d.id, d.numaNodes, d.payload?.ibdevs])).toEqual([
      ['0000:5e:00.0', [0], ['hfi1_0']],
      ['0000:af:00.0', [1], ['irdma0']],
      ['0000:3b:00.0', [0], ['mlx4_0']],
      ['0000:d8:00.0', [1], ['mlx5_0']],
    ]);
    const irdma = resource?.devices[1];
    expect(irdma?.allocation?.devices).toEqual(
      ['uverbs3', 'umad4', 'rdma_cm'].map((name) => ({
        containerPath: `/dev/infiniband/${name}`,
        hostPath: `/dev/infiniband/${name}`,
        permissions: 'rw',
      })),
    );
    expect(result.excluded).toEqual([expect.objectContaining({ path: '/sys/class/infiniband/bnxt_re0' })]);
  });

  it('every resource answers GetPreferredAllocation: exclusive by NUMA node, shared by the HCAs behind the IDs', async () => {
    const result = await plan(
      config(
        JSON.stringify({
          configList: [
            { resourceName: 'ex', mode: 'exclusive', selectors: { vendors: ['15b3', '8086'] } },
            { resourceName: 'all', rdmaHcaMax: 4 },
            { resourceName: 'cx5', rdmaHcaMax: 3, selectors: { deviceIDs: ['1017'] } },
          ],
        }),
      ),
    );
    const [ex, all, cx5] = result.resources;
    if (ex === undefined || all === undefined || cx5 === undefined)
      throw new Error('three resources expected');
    const ask = async (resource: typeof ex, mustInclude: string[], size: number): Promise<string[]> =>
      [
        ...((await resource.preferredAllocation?.({
          resource: resource.name,
          available: resource.devices,
          mustInclude,
          size,
        })) ?? []),
      ].sort();
    // Asked for two with the ConnectX-3 (node 0): the HFI, the other node-0 device.
    expect(await ask(ex, ['0000:3b:00.0'], 2)).toEqual(['0000:3b:00.0', '0000:5e:00.0']);
    expect(await ask(ex, ['0000:d8:00.0'], 2)).toEqual(['0000:af:00.0', '0000:d8:00.0']);
    // Shared IDs stand for every matched HCA: their locality is all the HCAs' NUMA nodes, even where the
    // advertised numaNodes stays empty (an ID spanning two nodes would fail single-numa-node admission).
    expect(all.devices[0]?.numaNodes).toEqual([]);
    expect(all.devices.map((d) => d.payload?.locality)).toEqual(
      Array.from({ length: 4 }, () => ({ numaNodes: [0, 1], pciePath: [] })),
    );
    expect(await ask(all, ['3'], 2)).toEqual(['0', '3']);
    expect(cx5.devices[0]?.payload?.locality).toEqual({ numaNodes: [1], pciePath: [] });
    expect(await ask(cx5, [], 2)).toHaveLength(2);
    // One CDI device for all IDs of a shared resource (they grant the same nodes); exclusive IDs keep their own.
    expect(new Set(all.devices.map((d) => all.cdi?.deviceName?.(d)))).toEqual(new Set(['hcas']));
    expect(ex.cdi?.deviceName).toBeUndefined();
    // Both hand CDI names over under upstream's annotation key too.
    expect([all.cdi?.annotation, ex.cdi?.annotation]).toEqual([
      'cdi.k8s.io/nvidia.com_net-rdma',
      'cdi.k8s.io/nvidia.com_net-rdma',
    ]);
  });

  it('exclusive per RDMA-capable VF: a VF with its own ibdev is one device, naming its PF', async () => {
    addRdmaDevice(fixture, {
      name: 'mlx5_1',
      pci: {
        address: '0000:d8:00.2',
        vendor: '0x15b3',
        device: '0x1018',
        class: '0x020000',
        driver: 'mlx5_core',
        numaNode: 1,
        physfn: '0000:d8:00.0',
      },
      ports: [{ linkLayer: 'Ethernet' }],
      uverbs: 4,
      umad: [5],
      netdevs: ['ens6f0v0'],
    });
    const result = await plan(
      config(
        '{"configList":[{"resourceName":"cx5_vf","mode":"exclusive","selectors":{"deviceIDs":["1018"]}}]}',
      ),
    );
    expect(result.resources[0]?.devices.map((d) => [d.id, d.numaNodes])).toEqual([['0000:d8:00.2', [1]]]);
    expect(result.resources[0]?.devices[0]?.attributes).toMatchObject({
      ibdev: 'mlx5_1',
      physfn: '0000:d8:00.0',
      netdevs: 'ens6f0v0',
    });
    expect(result.resources[0]?.devices[0]?.allocation?.devices?.map((d) => d.hostPath)).toEqual([
      '/dev/infiniband/uverbs4',
      '/dev/infiniband/umad5',
      '/dev/infiniband/issm5',
      '/dev/infiniband/rdma_cm',
    ]);
  });

  it('linkTypes selects ports: only matching devices and only their ports count', async () => {
    const result = await plan(
      config(
        JSON.stringify({
          configList: [
            { resourceName: 'ib', mode: 'exclusive', selectors: { linkTypes: ['infiniband'] } },
            { resourceName: 'roce', mode: 'exclusive', selectors: { linkTypes: ['ether'] } },
          ],
        }),
      ),
    );
    expect(result.resources.map((r) => r.devices.map((d) => d.payload?.ibdevs[0]))).toEqual([
      ['hfi1_0', 'mlx4_0'],
      ['irdma0', 'mlx5_0'],
    ]);
  });

  it('an HCA is unhealthy when all its counted ports are down or its uverbs node vanished, and recovers', async () => {
    const cfg = config('');
    const health = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        ((await plan(cfg)).resources[0]?.devices ?? []).map((d) => [d.payload?.ibdevs[0], d.health]),
      );
    setPortState(fixture, 'mlx4_0', 1, '1: DOWN', '2: Polling');
    expect((await health())['mlx4_0']).toBe('Healthy'); // port 2 is still up
    setPortState(fixture, 'mlx4_0', 2, '2: INIT', '5: LinkUp');
    expect((await health())['mlx4_0']).toBe('Unhealthy');
    fixture.removeDevNode('/dev/infiniband/uverbs1');
    expect((await health())['mlx5_0']).toBe('Unhealthy');
    const devices = (await plan(cfg)).resources[0]?.devices ?? [];
    expect(devices.find((d) => d.attributes?.['ibdev'] === 'mlx4_0')?.problem).toBe(
      'all ports down (port 1 DOWN/Polling, port 2 INIT/LinkUp)',
    );
    expect(devices.find((d) => d.attributes?.['ibdev'] === 'mlx5_0')?.problem).toBe(
      '/dev/infiniband/uverbs1 missing',
    );
    setPortState(fixture, 'mlx4_0', 2, '4: ACTIVE', '5: LinkUp');
    expect((await health())['mlx4_0']).toBe('Healthy');
  });

  it('shared IDs turn unhealthy only when every matched HCA is down', async () => {
    const cfg = config(
      '{"configList":[{"resourceName":"a","rdmaHcaMax":2,"selectors":{"vendors":["15b3"]}}]}',
    );
    setPortState(fixture, 'mlx4_0', 1, '1: DOWN', '3: Disabled');
    setPortState(fixture, 'mlx4_0', 2, '1: DOWN', '3: Disabled');
    expect((await plan(cfg)).resources[0]?.devices.map((d) => d.health)).toEqual(['Healthy', 'Healthy']);
    setPortState(fixture, 'mlx5_0', 1, '1: DOWN', '3: Disabled');
    expect((await plan(cfg)).resources[0]?.devices.map((d) => d.health)).toEqual(['Unhealthy', 'Unhealthy']);
  });

  it('exclusive resources claim devices in order and an overlap with a shared one is reported', async () => {
    const result = await plan(
      config(
        JSON.stringify({
          configList: [
            { resourceName: 'mellanox', mode: 'exclusive', selectors: { vendors: ['0x15B3'] } },
            { resourceName: 'all', mode: 'exclusive', rdmaHcaMax: 5 },
            { resourceName: 'shared', rdmaHcaMax: 1, selectors: { drivers: ['hfi1'] }, devices: ['ib9'] },
            { resourceName: 'shared2', rdmaHcaMax: 1, selectors: { drivers: ['ice'] } },
          ],
        }),
      ),
    );
    expect(result.resources.map((r) => r.devices.length)).toEqual([2, 2, 0, 1]);
    expect(result.warnings).toEqual([
      'configList[1].rdmaHcaMax: ignored in exclusive mode (one device per HCA)',
      'configList[2].devices: deprecated; treated as selectors.ifNames',
      'rdma/shared: no RDMA device matches its selectors; it advertises no devices',
      'irdma0 is exclusive to rdma/all and also shared through rdma/shared2',
    ]);
  });
});
