import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createHost } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addSriovPf, addTwoPfNode, bindDriver, setCarrier } from '../testing/sriov-node';
import type { NicFunction } from './nic-function';
import { createNicScanCache, kindOfClass, scanNics } from './scan-nics';

describe('scanNics', () => {
  let fixture: SysfsFixture;
  beforeEach(() => {
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
  });
  afterEach(() => fixture.remove());
  const scan = () => scanNics(createHost({ sysfsRoot: fixture.root, procRoot: fixture.procRoot }));
  const attr = (address: string, name: string, content: string): void =>
    writeFileSync(join(fixture.root, fixture.pciDir(address), name), content);

  it('reads the default partition key of InfiniBand functions only (pKeys), skipping a malformed one', async () => {
    addSriovPf(fixture, {
      address: '0000:5e:00.0',
      vendor: '15b3',
      device: '101b',
      vfDevice: '101c',
      driver: 'mlx5_core',
      netdev: 'ib0',
      numaNode: 0,
      totalVfs: 8,
      rootPort: '0000:5d:00.0',
      linkType: 32,
      vfs: [
        { address: '0000:5e:00.1', driver: 'mlx5_core', rdma: 'mlx5_20', pKey: '0x7fff', iommuGroup: 300 },
        { address: '0000:5e:00.2', driver: 'mlx5_core', rdma: 'mlx5_21', pKey: 'garbage', iommuGroup: 301 },
      ],
    });
    const byAddress = new Map((await scan()).functions.map((fn) => [fn.address, fn]));
    expect(byAddress.get('0000:5e:00.1')).toMatchObject({ linkType: 'infiniband', pKey: '0x7fff' });
    expect(byAddress.get('0000:5e:00.2')?.pKey).toBeUndefined();
    // RoCE (Ethernet) functions have RDMA devices but no partition key.
    expect(byAddress.get('0000:d8:00.2')?.pKey).toBeUndefined();
  });

  it('reads PFs and VFs, with indexes from sriov_offset/stride (Intel) and from virtfnN links (Mellanox)', async () => {
    const result = await scan();
    expect(result.warnings).toEqual([]);
    const byAddress = new Map(result.functions.map((fn) => [fn.address, fn]));
    expect(result.functions).toHaveLength(16);
    expect(byAddress.get('0000:3b:02.5')).toEqual({
      address: '0000:3b:02.5',
      sysfsPath: 'devices/pci0000:3a/0000:3a:00.0/0000:3b:02.5',
      kind: 'netDevice',
      vendor: '8086',
      device: '154c',
      driver: 'vfio-pci',
      numaNode: 0,
      iommuGroup: 105,
      noIommu: false,
      netdevs: [],
      linkType: 'ether',
      rdmaDevices: [],
      uioDevices: [],
      vf: { pfAddress: '0000:3b:00.0', index: 5 },
      pfName: 'ens1f0',
      pfCarrier: true,
      pciePath: ['0000:3a:00.0'],
    });
    expect(byAddress.get('0000:d8:01.1')).toMatchObject({
      vf: { pfAddress: '0000:d8:00.0', index: 7 },
      netdevs: ['ens2f0v7'],
      rdmaDevices: ['mlx5_9'],
      numaNode: 1,
    });
    expect(result.rdmaCharDevices.get('mlx5_9')).toEqual([
      '/dev/infiniband/uverbs9',
      '/dev/infiniband/issm9',
      '/dev/infiniband/umad9',
      '/dev/infiniband/rdma_cm',
    ]);
    // A vfio-pci VF of a no-IOMMU group is read as such (its group's `name`).
    fixture.write('kernel/iommu_groups/105/name', 'vfio-noiommu\n');
    expect((await scan()).functions.find((fn) => fn.address === '0000:3b:02.5')?.noIommu).toBe(true);
  });

  it('reads the no-IOMMU mode of a group once while a vfio-pci function is in it', async () => {
    const host = createHost({ sysfsRoot: fixture.root, procRoot: fixture.procRoot });
    const cache = createNicScanCache();
    const noIommu = async (): Promise<boolean | undefined> =>
      (await scanNics(host, cache)).functions.find((fn) => fn.address === '0000:3b:02.5')?.noIommu;
    expect(await noIommu()).toBe(false);
    expect([...cache.noIommuGroups]).toEqual([...[104, 105, 106, 107].map((group) => [group, false])]);
    // Kept while the group is in use (the mode of a group does not change) …
    fixture.write('kernel/iommu_groups/105/name', 'vfio-noiommu\n');
    expect(await noIommu()).toBe(false);
    // … and read again once the group was out of use for a scan.
    bindDriver(fixture, '0000:3b:02.5', undefined);
    await scanNics(host, cache);
    expect(cache.noIommuGroups.has(105)).toBe(false);
    bindDriver(fixture, '0000:3b:02.5', 'vfio-pci');
    expect(await noIommu()).toBe(true);
  });

  describe('with a cache kept from scan to scan', () => {
    const host = () => createHost({ sysfsRoot: fixture.root, procRoot: fixture.procRoot });
    const byAddress = (functions: readonly NicFunction[]) => new Map(functions.map((fn) => [fn.address, fn]));

    it('reuses every VF while only PF facts changed, and passes the PF carrier on to its VFs', async () => {
      const cache = createNicScanCache();
      for (let i = 0; i < 3; i++) await scanNics(host(), cache);
      const before = byAddress((await scanNics(host(), cache)).functions);
      // acpi_index is read only by a full read: it shows whether the VFs were read again.
      attr('0000:3b:02.0', 'acpi_index', '7\n');
      setCarrier(fixture, '0000:3b:00.0', 'ens1f0', false);
      const after = byAddress((await scanNics(host(), cache)).functions);
      expect(after.get('0000:3b:02.0')).toMatchObject({ pfCarrier: false, pfName: 'ens1f0' });
      expect(after.get('0000:3b:02.0')?.acpiIndex).toBeUndefined();
      // The other PF's VFs are the very same objects.
      expect(after.get('0000:d8:00.2')).toBe(before.get('0000:d8:00.2'));
      // A rename of the PF's netdev reaches its VFs (pfNames selectors) without a full read either.
      const net = join(fixture.root, fixture.pciDir('0000:d8:00.0'), 'net');
      renameSync(join(net, 'ens2f0'), join(net, 'p2p1'));
      expect(byAddress((await scanNics(host(), cache)).functions).get('0000:d8:00.2')?.pfName).toBe('p2p1');
    });

    it.each<[string, (fixture: SysfsFixture) => void, (fn: NicFunction | undefined) => unknown, unknown]>([
      ['a VF unbound', (f) => bindDriver(f, '0000:3b:02.6', undefined), (fn) => fn?.driver, undefined],
      [
        'a VF rebound to another driver (and its netdev appearing)',
        (f) => {
          bindDriver(f, '0000:3b:02.6', 'iavf');
          f.addClassDevice('net', 'ens1f0v6', { pciAddress: '0000:3b:02.6' });
        },
        (fn) => [fn?.driver, fn?.netdevs],
        ['iavf', ['ens1f0v6']],
      ],
      [
        'an RDMA device appearing after the driver bound',
        (f) => f.addClassDevice('infiniband', 'mlx5_10', { pciAddress: '0000:3b:02.6' }),
        (fn) => fn?.rdmaDevices,
        ['mlx5_10'],
      ],
    ])('reads the VFs again after %s', async (_what, change, pick, expected) => {
      const cache = createNicScanCache();
      for (let i = 0; i < 3; i++) await scanNics(host(), cache);
      change(fixture);
      expect(pick(byAddress((await scanNics(host(), cache)).functions).get('0000:3b:02.6'))).toEqual(
        expected,
      );
    });
  });

  it('degrades one device with a warning for garbage, never throws', async () => {
    attr('0000:3b:00.0', 'numa_node', 'zero\n');
    attr('0000:d8:00.0', 'vendor', '');
    rmSync(join(fixture.root, fixture.pciDir('0000:3b:02.6'), 'driver'));
    writeFileSync(join(fixture.root, fixture.pciDir('0000:3b:02.6'), 'driver'), 'not a link');
    rmSync(join(fixture.root, fixture.pciDir('0000:d8:00.0'), 'virtfn3'));
    const result = await scan();
    expect(result.warnings).toEqual([
      '0000:3b:00.0: numa_node is not a number ("zero"); topology unknown',
      '0000:d8:00.5: its PF 0000:d8:00.0 does not list it among its virtfnN links; VF skipped',
    ]);
    const byAddress = new Map(result.functions.map((fn) => [fn.address, fn]));
    expect(byAddress.get('0000:3b:02.0')?.numaNode).toBeUndefined();
    expect(byAddress.get('0000:3b:02.6')?.driver).toBeUndefined();
    expect(byAddress.get('0000:d8:00.2')?.vendor).toBeUndefined();
    expect(byAddress.has('0000:d8:00.5')).toBe(false);
  });

  it('skips PFs with VFs and the default-route interface, and reads a PF without VFs as a candidate', async () => {
    attr('0000:d8:00.0', 'sriov_numvfs', '0\n');
    const result = await scan();
    expect(result.skipped.map((s) => s.path)).toEqual([
      '/sys/bus/pci/devices/0000:00:1f.6',
      '/sys/bus/pci/devices/0000:3b:00.0',
    ]);
    // The functions behind them, as read (the PF's carrier and VF count still matter to its VFs).
    expect(result.skippedFunctions.map((fn) => [fn.address, fn.netdevs, fn.sriov?.numVfs])).toEqual([
      ['0000:00:1f.6', ['eno1'], undefined],
      ['0000:3b:00.0', ['ens1f0'], 8],
    ]);
    expect(result.functions.find((fn) => fn.address === '0000:d8:00.0')).toMatchObject({
      sriov: { totalVfs: 16, numVfs: 0 },
      pfName: 'ens2f0',
      netdevs: ['ens2f0'],
    });
  });

  it('survives arbitrary contents of the NIC files it reads (link type, carrier, ibdev, net/route)', async () => {
    const files = [
      `${fixture.pciDir('0000:3b:00.0')}/net/ens1f0/type`,
      `${fixture.pciDir('0000:3b:00.0')}/net/ens1f0/carrier`,
      `${fixture.pciDir('0000:d8:00.0')}/net/ens2f0/type`,
      'class/infiniband_verbs/uverbs3/ibdev',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...files),
        fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', '-1', '32', '1\n1')),
        fc.string({ maxLength: 200 }),
        async (file, content, route) => {
          fixture.write(file, content);
          fixture.writeProc('net/route', route);
          expect((await scan()).functions.length).toBeGreaterThanOrEqual(16);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('classifies PCI classes by their top byte', () => {
    expect(kindOfClass(0x020000)).toBe('netDevice');
    expect(kindOfClass(0x020700)).toBe('netDevice');
    expect(kindOfClass(0x120000)).toBe('accelerator');
    expect(kindOfClass(0x030200)).toBeUndefined();
    expect(kindOfClass(undefined)).toBeUndefined();
  });
});
