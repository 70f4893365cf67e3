import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeProbe } from '@kdp/core/plugin';
import { createHost, type Host } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import {
  addSriovVf,
  addTwoPfNode,
  bindDriver,
  emulateUevents,
  raiseUevent,
  removeSriovVf,
  setCarrier,
  type FixturePf,
} from '../testing/sriov-node';
import { nicChangeProbe } from './nic-change-probe';
import { scanNics } from './scan-nics';

describe.each([
  ['lists (no uevent count)', false],
  ['the uevent count', true],
])('nicChangeProbe by %s', (_mode, uevents) => {
  let fixture: SysfsFixture;
  let node: { intel: FixturePf; mellanox: FixturePf };
  let host: Host;
  beforeEach(() => {
    fixture = createSysfsFixture();
    if (uevents) emulateUevents(fixture);
    node = addTwoPfNode(fixture);
    host = createHost({ sysfsRoot: fixture.root, procRoot: fixture.procRoot, devRoot: fixture.devRoot });
  });
  afterEach(() => fixture.remove());

  const probe = async (): Promise<ChangeProbe> => nicChangeProbe(await scanNics(host));
  /** What the probe's paths hold now, read through the plugin's own readers. */
  const reading = async (paths: ChangeProbe): Promise<string> => {
    const parts: string[] = [];
    for (const [reader, part] of [
      [host.sysfs, paths.sysfs],
      [host.procfs, paths.procfs],
    ] as const) {
      for (const path of part?.list ?? []) parts.push(`${path}: ${(await reader.list(path)).join(' ')}`);
      for (const path of part?.read ?? []) parts.push(`${path}: ${String(await reader.read(path))}`);
      for (const path of part?.links ?? []) parts.push(`${path}: ${String(await reader.readLink(path))}`);
    }
    return parts.join('\n');
  };
  const pf = (address: string): string => fixture.pciDir(address);

  it('reads sriov_numvfs, carrier and the route table, and the uevent count or lists; nothing per VF', async () => {
    const paths = await probe();
    const [intel, mellanox, management] = ['0000:3b:00.0', '0000:d8:00.0', '0000:00:1f.6'].map(pf);
    const read = [
      `${management}/net/eno1/carrier`,
      `${intel}/sriov_numvfs`,
      `${intel}/net/ens1f0/carrier`,
      `${mellanox}/sriov_numvfs`,
      `${mellanox}/net/ens2f0/carrier`,
    ];
    expect(paths.procfs).toEqual({ read: ['net/route'] });
    expect(paths.devfs).toBeUndefined();
    if (uevents) {
      expect(paths.sysfs).toEqual({ read: ['kernel/uevent_seqnum', ...read] });
      return;
    }
    expect(paths.sysfs?.list).toEqual([
      'bus/pci/devices',
      'class/infiniband',
      `${management}/net`,
      `${intel}/net`,
      `${mellanox}/net`,
      ...['e1000e', 'i40e', 'iavf', 'mlx5_core', 'vfio-pci'].map((driver) => `bus/pci/drivers/${driver}`),
      'class/infiniband_verbs',
      'class/infiniband_mad',
      'class/infiniband_cm',
    ]);
    expect(paths.sysfs?.read).toEqual(read);
    expect(paths.sysfs?.links).toEqual([]);
  });

  it('notices an unbound function bound to a driver no function had (lists: by its driver link)', async () => {
    bindDriver(fixture, '0000:3b:02.6', undefined);
    const paths = await probe();
    expect(paths.sysfs?.links).toEqual(uevents ? undefined : [`${pf('0000:3b:02.6')}/driver`]);
    const before = await reading(paths);
    bindDriver(fixture, '0000:3b:02.6', 'igb_uio');
    expect(await reading(paths)).not.toBe(before);
  });

  it.each<[string, () => void]>([
    ['a PF losing its carrier', () => setCarrier(fixture, node.intel.address, node.intel.netdev, false)],
    ['a VF unbound', () => bindDriver(fixture, '0000:3b:02.1', undefined)],
    ['a VF rebound to another driver', () => bindDriver(fixture, '0000:3b:02.1', 'vfio-pci')],
    ['a VF added', () => addSriovVf(fixture, node.intel, { address: '0000:3b:03.0', iommuGroup: 108 }, 8)],
    ['a VF removed', () => removeSriovVf(fixture, node.intel.address, '0000:3b:02.7', 7, 7)],
    ['sriov_numvfs written', () => fixture.write(`${pf(node.intel.address)}/sriov_numvfs`, '0\n')],
    [
      'a PF netdev renamed',
      () => {
        const net = join(fixture.root, pf(node.mellanox.address), 'net');
        renameSync(join(net, 'ens2f0'), join(net, 'enp216s0f0np0'));
        raiseUevent(fixture); // the kernel's "move" event
      },
    ],
    ['the default route moving', () => fixture.writeProc('net/route', 'Iface\tDestination\n')],
    [
      'an RDMA device appearing',
      () => {
        fixture.addClassDevice('infiniband', 'mlx5_10', { pciAddress: '0000:d8:00.7' });
        raiseUevent(fixture);
      },
    ],
  ])('reads differently after %s', async (_what, change) => {
    const paths = await probe();
    const before = await reading(paths);
    change();
    expect(await reading(paths)).not.toBe(before);
  });

  it.each<[string, () => void]>([
    [
      'a VF netdev losing its carrier',
      () => fixture.write(`${pf('0000:3b:02.0')}/net/ens1f0v0/carrier`, '0\n'),
    ],
    ['a VF attribute', () => fixture.write(`${pf('0000:3b:02.0')}/numa_node`, '1\n')],
    [
      'a PF statistic',
      () => fixture.write(`${pf(node.intel.address)}/net/ens1f0/statistics/rx_bytes`, '9\n'),
    ],
  ])('reads the same after %s, which the kubelet never sees', async (_what, change) => {
    const paths = await probe();
    const before = await reading(paths);
    change();
    expect(await reading(paths)).toBe(before);
  });

  it('reads no route table on a node whose functions have no netdev', () => {
    const paths = nicChangeProbe({
      functions: [],
      skipped: [],
      skippedFunctions: [],
      rdmaCharDevices: new Map(),
      uevents,
      warnings: [],
    });
    expect(paths).toEqual({
      sysfs: uevents
        ? { read: ['kernel/uevent_seqnum'] }
        : { list: ['bus/pci/devices', 'class/infiniband'], read: [], links: [] },
    });
  });
});
