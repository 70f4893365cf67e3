import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeProbe } from '@kdp/core/plugin';
import { createHost } from '@kdp/topology';
import type { SysfsFixture } from '@kdp/topology/testing';
import { createRdmaScaleMachine } from '../testing/create-rdma-scale-machine';
import { addRdmaDevice, createRdmaMachine, setPortState, type RdmaDeviceSpec } from '../testing/rdma-machine';
import { removeRdmaDevice, restoreRdmaDevice } from '../testing/remove-rdma-device';
import { rdmaChangeProbe } from './rdma-change-probe';
import { readRdmaInventory, type RdmaInventory } from './read-rdma-inventory';

const inventoryOf = (fixture: SysfsFixture): Promise<RdmaInventory> =>
  readRdmaInventory({ host: createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot }) });

/** What the runtime compares between two ticks: listings, file contents (missing ones as a marker). */
function readProbe(fixture: SysfsFixture, probe: ChangeProbe): string[] {
  const attempt = (read: () => string): string => {
    try {
      return read();
    } catch (error) {
      return `!${(error as NodeJS.ErrnoException).code}`;
    }
  };
  const sys = (path: string): string => join(fixture.root, path);
  const dev = (path: string): string => join(fixture.devRoot, path.replace(/^\/dev\/?/, ''));
  return [
    ...(probe.sysfs?.list ?? []).map((p) => attempt(() => readdirSync(sys(p)).sort().join('/'))),
    ...(probe.sysfs?.read ?? []).map((p) => attempt(() => readFileSync(sys(p), 'latin1'))),
    ...(probe.devfs?.list ?? []).map((p) => attempt(() => readdirSync(dev(p)).sort().join('/'))),
  ];
}

describe('rdmaChangeProbe', () => {
  let fixture: SysfsFixture;
  afterEach(() => fixture.remove());

  it('lists the RDMA classes, /dev/infiniband and each HCA’s interfaces, and reads every port’s state and phys_state', async () => {
    fixture = createRdmaMachine();
    const probe = rdmaChangeProbe(await inventoryOf(fixture));
    const hcas = ['hfi1_0', 'irdma0', 'mlx4_0', 'mlx5_0']; // bnxt_re0 has no uverbs: not in the inventory
    expect(probe.sysfs?.list).toEqual([
      'class/infiniband',
      'class/infiniband_verbs',
      'class/infiniband_mad',
      'class/infiniband_cm',
      ...hcas.map((hca) => `class/infiniband/${hca}/device/net`),
    ]);
    const ports = (hca: string, n: number) => [
      `class/infiniband/${hca}/ports/${n}/state`,
      `class/infiniband/${hca}/ports/${n}/phys_state`,
    ];
    expect(probe.sysfs?.read).toEqual([
      ...ports('hfi1_0', 1),
      ...ports('irdma0', 1),
      ...ports('mlx4_0', 1),
      ...ports('mlx4_0', 2),
      ...ports('mlx5_0', 1),
    ]);
    expect(probe.sysfs?.links).toBeUndefined();
    // The Omni-Path HFI's PSM2 node is /dev/hfi1_0, outside /dev/infiniband.
    expect(probe.devfs).toEqual({ list: ['/dev/infiniband', '/dev'] });
    expect(probe.procfs).toBeUndefined();
    // A typo would read as "missing" forever and never see a change: only what this host lacks is missing
    // (no ib_ucm loaded, no interface on the HFI).
    const all = [...(probe.sysfs?.list ?? []), ...(probe.sysfs?.read ?? []), ...(probe.devfs?.list ?? [])];
    const missing = readProbe(fixture, probe).flatMap((value, i) => (value.startsWith('!') ? [all[i]] : []));
    expect(missing).toEqual(['class/infiniband_cm', 'class/infiniband/hfi1_0/device/net']);
  });

  it('without an Omni-Path device, /dev itself is not listed', async () => {
    ({ fixture } = createRdmaScaleMachine({ hcas: 2 }));
    expect(rdmaChangeProbe(await inventoryOf(fixture)).devfs).toEqual({ list: ['/dev/infiniband'] });
  });

  describe('reads differently after every change the kubelet must see, and the same while nothing changes', () => {
    let hcas: readonly RdmaDeviceSpec[];
    let probe: ChangeProbe;
    let before: string[];
    beforeEach(async () => {
      ({ fixture, hcas } = createRdmaScaleMachine({ hcas: 4 }));
      probe = rdmaChangeProbe(await inventoryOf(fixture));
      before = readProbe(fixture, probe);
    });
    const hca = (n: number): RdmaDeviceSpec => hcas[n] as RdmaDeviceSpec;

    it('unchanged', () => {
      expect(readProbe(fixture, probe)).toEqual(before);
    });
    it('a port state only (the link drops to INIT, phys_state stays LinkUp)', () => {
      fixture.write('class/infiniband/mlx5_2/ports/1/state', '2: INIT\n');
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
    it('a port phys_state only', () => {
      setPortState(fixture, 'mlx5_1', 1, '4: ACTIVE', '3: Disabled');
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
    it('an HCA leaving (class entries, then /dev nodes), and the same again once it is back', () => {
      removeRdmaDevice(fixture, hca(3));
      expect(readProbe(fixture, probe)).not.toEqual(before);
      restoreRdmaDevice(fixture, hca(3));
      expect(readProbe(fixture, probe)).toEqual(before);
    });
    it('an HCA leaving sysfs alone (its /dev nodes still there)', () => {
      rmSync(join(fixture.root, 'class/infiniband/mlx5_0'));
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
    it('a new HCA', () => {
      const { parent: _switch, ...pci } = hca(0).pci;
      addRdmaDevice(fixture, {
        ...hca(0),
        name: 'mlx5_9',
        pci: { ...pci, address: '0000:a0:00.0' },
        uverbs: 9,
        umad: [9],
        netdevs: [],
      });
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
    it('a new interface of an HCA (what ifNames selectors match)', () => {
      fixture.addClassDevice('net', 'ib1v', { pciAddress: hca(1).pci.address });
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
    it('a node vanishing from /dev/infiniband', () => {
      fixture.removeDevNode('/dev/infiniband/umad2');
      expect(readProbe(fixture, probe)).not.toEqual(before);
    });
  });
});
