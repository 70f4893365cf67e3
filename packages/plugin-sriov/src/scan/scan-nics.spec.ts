import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createHost } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addTwoPfNode } from '../testing';
import { kindOfClass, scanNics } from './scan-nics';

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

  it('reads PFs and VFs, with indexes from sriov_offset/stride (Intel) and from virtfnN links (Mellanox)', async () => {
    const result = await scan();
    expect(result.warnings).toEqual([]);
    const byAddress = new Map(result.functions.map((fn) => [fn.address, fn]));
    expect(result.functions).toHaveLength(16);
    expect(byAddress.get('0000:3b:02.5')).toEqual({
      address: '0000:3b:02.5',
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
