import { createHost } from '@kdp/topology';
import { readRdmaInventory, type RdmaInventory } from '../scan/read-rdma-inventory';
import { createRdmaScaleMachine, type RdmaScaleMachine } from './create-rdma-scale-machine';
import { removeRdmaDevice, restoreRdmaDevice } from './remove-rdma-device';

describe('createRdmaScaleMachine', () => {
  let machine: RdmaScaleMachine;
  const inventory = (): Promise<RdmaInventory> =>
    readRdmaInventory({
      host: createHost({ sysfsRoot: machine.fixture.root, devRoot: machine.fixture.devRoot }),
    });
  afterEach(() => machine.fixture.remove());

  it('builds 8 ConnectX-6 HCAs, four per NUMA node, two per PCIe switch, every node present', async () => {
    machine = createRdmaScaleMachine();
    const { hcas, warnings, excluded } = await inventory();
    expect({ warnings, excluded }).toEqual({ warnings: [], excluded: [] });
    expect(hcas.map((h) => [h.name, h.pciAddress, h.numaNodes])).toEqual(
      machine.hcas.map((spec, n) => [spec.name, spec.pci.address, [n < 4 ? 0 : 1]]),
    );
    expect(hcas.every((h) => h.ports.length === 1 && h.ports[0]?.up === true)).toBe(true);
    expect(hcas[5]?.charDevices.map((d) => [d.hostPath, d.present])).toEqual([
      ['/dev/infiniband/uverbs5', true],
      ['/dev/infiniband/umad5', true],
      ['/dev/infiniband/issm5', true],
    ]);
    // Siblings share their switch; neighbours across a pair do not.
    expect(hcas[0]?.pciePath).toEqual(hcas[1]?.pciePath);
    expect(hcas[0]?.pciePath).toHaveLength(2);
    expect(hcas[2]?.pciePath).not.toEqual(hcas[1]?.pciePath);
  });

  it('rejects scales it cannot build', () => {
    expect(() => createRdmaScaleMachine({ hcas: 0 })).toThrow(RangeError);
    expect(() => createRdmaScaleMachine({ hcas: 2, numaNodes: 3 })).toThrow(RangeError);
  });

  it('removeRdmaDevice takes an HCA off sysfs and /dev; restoreRdmaDevice brings back the same inventory', async () => {
    machine = createRdmaScaleMachine({ hcas: 4 });
    const before = await inventory();
    const spec = machine.hcas[2];
    if (spec === undefined) throw new Error('no third HCA');
    removeRdmaDevice(machine.fixture, spec);
    const gone = await inventory();
    expect(gone.hcas.map((h) => h.name)).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_3']);
    expect(gone.warnings).toEqual([]);
    restoreRdmaDevice(machine.fixture, spec);
    expect(await inventory()).toEqual(before);
  });
});
