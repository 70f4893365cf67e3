import { createHost, type Host } from '@kdp/topology';
import type { SysfsFixture } from '@kdp/topology/testing';
import fc from 'fast-check';
import { createRdmaMachine, setPortState } from '../testing/rdma-machine';
import { readRdmaInventory, type RdmaHca, type RdmaInventory } from './read-rdma-inventory';

describe('readRdmaInventory', () => {
  let fixture: SysfsFixture;
  let host: Host;
  const scan = (): Promise<RdmaInventory> => readRdmaInventory({ host });
  const hca = (inventory: RdmaInventory, name: string): RdmaHca => {
    const found = inventory.hcas.find((h) => h.name === name);
    if (found === undefined) throw new Error(`${name} not found`);
    return found;
  };

  beforeEach(() => {
    fixture = createRdmaMachine();
    host = createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot });
  });
  afterEach(() => fixture.remove());

  it('finds every device with a uverbs node and explains the one without', async () => {
    const inventory = await scan();
    expect(inventory.hcas.map((h) => h.name)).toEqual(['hfi1_0', 'irdma0', 'mlx4_0', 'mlx5_0']);
    expect(inventory.excluded).toEqual([
      {
        path: '/sys/class/infiniband/bnxt_re0',
        reason: 'no uverbs character device in /sys/class/infiniband_verbs (is ib_uverbs loaded?)',
      },
    ]);
    expect(inventory.warnings).toEqual([]);
    expect(inventory.rdmaCm).toEqual({ hostPath: '/dev/infiniband/rdma_cm', present: true });
  });

  it('reads a two-port ConnectX: PCI function, GUID, firmware, both ports and per-port umad/issm', async () => {
    const mlx4 = hca(await scan(), 'mlx4_0');
    expect(mlx4.pciAddress).toBe('0000:3b:00.0');
    expect(mlx4.pci?.vendor).toBe('0x15b3');
    expect(mlx4.pci?.driver).toBe('mlx4_core');
    expect(mlx4.nodeGuid).toBe('e41d:2d03:0060:7a10');
    expect(mlx4.fwVer).toBe('2.42.5000');
    expect(mlx4.nodeType).toBe('1: CA');
    expect(mlx4.numaNodes).toEqual([0]);
    expect(mlx4.netdevs).toEqual(['ib0', 'ib1']);
    expect(mlx4.ports).toEqual(
      [1, 2].map((number) => ({
        number,
        state: { code: 4, name: 'ACTIVE' },
        physState: { code: 5, name: 'LinkUp' },
        linkLayer: 'InfiniBand',
        rate: '56 Gb/sec (4X FDR)',
        up: true,
      })),
    );
    expect(mlx4.charDevices.map((d) => [d.name, d.kind, d.port, d.hostPath, d.present])).toEqual([
      ['uverbs0', 'uverbs', undefined, '/dev/infiniband/uverbs0', true],
      ['umad0', 'umad', 1, '/dev/infiniband/umad0', true],
      ['issm0', 'issm', 1, '/dev/infiniband/issm0', true],
      ['umad1', 'umad', 2, '/dev/infiniband/umad1', true],
      ['issm1', 'issm', 2, '/dev/infiniband/issm1', true],
    ]);
  });

  it('reads RoCE, Omni-Path (with /dev/hfi1_0) and an adapter without issm', async () => {
    const inventory = await scan();
    expect(hca(inventory, 'mlx5_0').ports[0]?.linkLayer).toBe('Ethernet');
    expect(hca(inventory, 'mlx5_0').numaNodes).toEqual([1]);
    expect(hca(inventory, 'hfi1_0').charDevices.map((d) => d.hostPath)).toEqual([
      '/dev/infiniband/uverbs2',
      '/dev/infiniband/umad3',
      '/dev/infiniband/issm3',
      '/dev/hfi1_0',
    ]);
    expect(hca(inventory, 'irdma0').charDevices.map((d) => d.name)).toEqual(['uverbs3', 'umad4']);
  });

  it('hands out the connection-manager node of older kernels (infiniband_cm/ucmN)', async () => {
    fixture.addClassDevice('infiniband_cm', 'ucm0', {
      pciAddress: '0000:3b:00.0',
      dev: '231:224',
      attributes: { ibdev: 'mlx4_0' },
    });
    fixture.addDevNode('/dev/infiniband/ucm0', 231, 224);
    const mlx4 = hca(await scan(), 'mlx4_0');
    expect(mlx4.charDevices.map((d) => d.name)).toEqual([
      'uverbs0',
      'ucm0',
      'umad0',
      'issm0',
      'umad1',
      'issm1',
    ]);
  });

  it('sees ports go down and nodes vanish', async () => {
    setPortState(fixture, 'mlx4_0', 2, '1: DOWN', '3: Disabled');
    fixture.removeDevNode('/dev/infiniband/umad3');
    fixture.removeDevNode('/dev/infiniband/rdma_cm');
    const inventory = await scan();
    expect(hca(inventory, 'mlx4_0').ports.map((p) => p.up)).toEqual([true, false]);
    expect(hca(inventory, 'hfi1_0').charDevices.find((d) => d.name === 'umad3')?.present).toBe(false);
    expect(inventory.rdmaCm.present).toBe(false);
    expect(inventory.warnings).toEqual([
      expect.stringContaining('umad3 is in sysfs but'),
      expect.stringContaining('rdma_cm is missing'),
    ]);
  });

  it('degrades a device with garbage attributes and a dangling PCI link instead of failing', async () => {
    fixture.write('class/infiniband/mlx5_0/ports/1/state', '\n');
    fixture.write('class/infiniband/mlx5_0/ports/1/phys_state', 'garbage\n');
    fixture.link('class/infiniband/ghost0', '../../devices/nowhere/ghost0');
    fixture.write('class/infiniband_verbs/uverbs9/ibdev', '../../etc\n');
    const inventory = await scan();
    const mlx5 = hca(inventory, 'mlx5_0');
    expect(mlx5.ports[0]?.up).toBe(false);
    expect(inventory.warnings).toEqual(
      expect.arrayContaining([
        '/sys/class/infiniband_verbs/uverbs9/ibdev: not a device name; uverbs9 ignored',
        expect.stringMatching(/mlx5_0\/ports\/1\/state: unexpected content ""; port counted as down/),
        expect.stringMatching(/phys_state: unexpected content "garbage"/),
      ]),
    );
    expect(inventory.excluded.map((e) => e.path)).toContain('/sys/class/infiniband/ghost0');
  });

  it('never throws whatever the port and char-device attributes hold', async () => {
    const files = [
      'class/infiniband/mlx4_0/ports/1/state',
      'class/infiniband/mlx4_0/ports/2/phys_state',
      'class/infiniband/mlx4_0/ports/1/link_layer',
      'class/infiniband/mlx4_0/node_guid',
      'class/infiniband_mad/umad0/port',
      'class/infiniband_verbs/uverbs0/ibdev',
      'bus/pci/devices/0000:3b:00.0/numa_node',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files), fc.string({ maxLength: 60 }), async (file, content) => {
        fixture.write(file, content);
        const inventory = await scan();
        expect(inventory.hcas.length + inventory.excluded.length).toBeGreaterThanOrEqual(4);
      }),
      { numRuns: 60 },
    );
  });
});
