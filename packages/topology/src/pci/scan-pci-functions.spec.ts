import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSysfs } from '../sysfs/create-sysfs';
import { createSysfsFixture, type SysfsFixture } from '../testing/sysfs-fixture';
import { scanPciFunctions } from './scan-pci-functions';

/**
 * A root port with an SR-IOV NIC PF (4 VFs at offset 16, stride 1, with sriov_offset/stride files), a second
 * PF without those files (its 2 VFs found through virtfnN only), a GPU and an unreadable-class function.
 */
function addMachine(fixture: SysfsFixture): void {
  fixture.addNumaNode({ id: 0, cpus: '0-7' });
  fixture.addNumaNode({ id: 1, cpus: '8-15' });
  fixture.addPciDevice({ address: '0000:3a:00.0', class: '0x060400', driver: 'pcieport', numaNode: 0 });
  fixture.addPciDevice({
    address: '0000:3b:00.0',
    parent: '0000:3a:00.0',
    vendor: '0x8086',
    device: '0x1572',
    class: '0x020000',
    driver: 'i40e',
    numaNode: 0,
    iommuGroup: 30,
    sriovTotalVfs: 64,
    attributes: { sriov_vf_device: '154c', sriov_offset: '16', sriov_stride: '1', acpi_index: '3' },
  });
  for (let i = 0; i < 4; i++) {
    fixture.addPciDevice({
      address: `0000:3b:02.${i}`,
      parent: '0000:3a:00.0',
      vendor: '0x8086',
      device: '0x154c',
      class: '0x020000',
      numaNode: 0,
      iommuGroup: 100 + i,
      physfn: '0000:3b:00.0',
      vfIndex: i,
      ...(i < 2 ? { driver: 'iavf' } : {}),
    });
  }
  fixture.addPciDevice({
    address: '0000:d8:00.0',
    numaNode: 1,
    sriovTotalVfs: 8,
    vendor: '0x15b3',
    device: '0x1017',
    class: '0x020000',
    driver: 'mlx5_core',
  });
  // VF 0 at 00.3, VF 1 at 00.2: only the virtfnN links say which is which.
  for (const [index, address] of [
    [0, '0000:d8:00.3'],
    [1, '0000:d8:00.2'],
  ] as const) {
    fixture.addPciDevice({
      address,
      vendor: '0x15b3',
      device: '0x1018',
      class: '0x020000',
      driver: 'mlx5_core',
      numaNode: 1,
      iommuGroup: 200 + index,
      physfn: '0000:d8:00.0',
      vfIndex: index,
    });
  }
  fixture.addPciDevice({ address: '0000:af:00.0', vendor: '0x10de', class: '0x030200', numaNode: 1 });
  fixture.addPciDevice({ address: '0000:00:1f.0', attributes: { class: 'garbage' } });
}

describe('scanPciFunctions', () => {
  let fixture: SysfsFixture;
  beforeEach(() => {
    fixture = createSysfsFixture();
    addMachine(fixture);
  });
  afterEach(() => fixture.remove());
  const scan = (select?: (pciClass: number) => boolean) =>
    scanPciFunctions(createSysfs({ root: fixture.root }), select ? { select } : {});
  const attr = (address: string, name: string, content: string): void =>
    writeFileSync(join(fixture.root, fixture.pciDir(address), name), content);

  it('reads heads in full and VFs lean, with indexes from sriov_offset/stride or the virtfnN links', async () => {
    const result = await scan((pciClass) => pciClass >> 16 === 0x02);
    expect(result.warnings).toEqual([]);
    expect(result.functions.map((fn) => fn.address)).toEqual([
      '0000:3b:00.0',
      '0000:3b:02.0',
      '0000:3b:02.1',
      '0000:3b:02.2',
      '0000:3b:02.3',
      '0000:d8:00.0',
      '0000:d8:00.2',
      '0000:d8:00.3',
    ]);
    const [pf, vf0, , vf2] = result.functions;
    expect(pf).toEqual({
      address: '0000:3b:00.0',
      sysfsPath: 'devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0',
      entries: expect.any(Set),
      pciClass: 0x020000,
      vendor: '0x8086',
      device: '0x1572',
      driver: 'i40e',
      numaNode: 0,
      iommuGroup: 30,
      acpiIndex: '3',
      sriov: { totalVfs: 64, numVfs: 4, offset: 16, stride: 1, vfDevice: '0x154c' },
      pciePath: ['0000:3a:00.0'],
    });
    expect(pf?.entries.has('virtfn3')).toBe(true);
    expect(vf0).toEqual({
      address: '0000:3b:02.0',
      sysfsPath: 'devices/pci0000:3a/0000:3a:00.0/0000:3b:02.0',
      entries: expect.any(Set),
      pciClass: 0x020000,
      vendor: '0x8086',
      device: '0x154c',
      driver: 'iavf',
      numaNode: 0,
      iommuGroup: 100,
      vf: { pfAddress: '0000:3b:00.0', index: 0 },
      pciePath: ['0000:3a:00.0'],
    });
    expect(vf2?.driver).toBeUndefined();
    expect(vf2?.vf).toEqual({ pfAddress: '0000:3b:00.0', index: 2 });
    // No sriov_vf_device on the ConnectX PF: each VF's own device ID; no offset/stride: the links.
    expect(result.functions.slice(6).map((fn) => [fn.address, fn.device, fn.vf?.index])).toEqual([
      ['0000:d8:00.2', '0x1018', 1],
      ['0000:d8:00.3', '0x1018', 0],
    ]);
    const all = await scan();
    expect(all.functions.map((fn) => fn.address)).toEqual([
      '0000:3a:00.0',
      ...result.functions.slice(0, 5).map((fn) => fn.address),
      '0000:af:00.0',
      ...result.functions.slice(5).map((fn) => fn.address),
    ]);
  });

  it('reuses the directories of an earlier scan while the bus links still name them', async () => {
    const sysfs = createSysfs({ root: fixture.root });
    const knownPaths = new Map<string, string>();
    const first = await scanPciFunctions(sysfs, { knownPaths });
    expect(knownPaths.get('0000:3b:02.1')).toBe('devices/pci0000:3a/0000:3a:00.0/0000:3b:02.1');
    expect(await scanPciFunctions(sysfs, { knownPaths })).toEqual(first);
    // A remembered directory the bus link no longer names is resolved again.
    knownPaths.set('0000:3b:02.1', 'devices/pci0000:3a/0000:3b:02.1');
    const again = await scanPciFunctions(sysfs, { knownPaths });
    expect(again.functions.find((fn) => fn.address === '0000:3b:02.1')?.sysfsPath).toBe(
      'devices/pci0000:3a/0000:3a:00.0/0000:3b:02.1',
    );
    expect(knownPaths.get('0000:3b:02.1')).toBe('devices/pci0000:3a/0000:3a:00.0/0000:3b:02.1');
  });

  it.each(['17', '0', 'x'])(
    'takes the indexes from the virtfnN links when sriov_offset %s does not give the device list',
    async (offset) => {
      attr('0000:3b:00.0', 'sriov_offset', `${offset}\n`);
      const vfs = (await scan()).functions.filter((fn) => fn.vf?.pfAddress === '0000:3b:00.0');
      expect(vfs.map((fn) => `${fn.address}#${fn.vf?.index}`)).toEqual([
        '0000:3b:02.0#0',
        '0000:3b:02.1#1',
        '0000:3b:02.2#2',
        '0000:3b:02.3#3',
      ]);
    },
  );

  it('degrades garbage with a warning and skips a VF its PF does not list, never throwing', async () => {
    const garbage = [
      ['0000:3b:00.0', 'numa_node', 'zero\n'],
      ['0000:d8:00.0', 'vendor', ''],
    ] as const;
    for (const [address, name, content] of garbage) attr(address, name, content);
    rmSync(join(fixture.root, fixture.pciDir('0000:3b:02.3'), 'iommu_group'));
    fixture.link(`${fixture.pciDir('0000:3b:02.3')}/iommu_group`, '../../../../kernel/iommu_groups/abc');
    rmSync(join(fixture.root, fixture.pciDir('0000:d8:00.0'), 'virtfn1'));
    const result = await scan();
    expect(result.warnings).toEqual([
      '0000:3b:00.0: numa_node is not a number ("zero"); topology unknown',
      '0000:3b:02.3: iommu_group link names "abc", not a number',
      '0000:d8:00.2: its PF 0000:d8:00.0 does not list it among its virtfnN links; VF skipped',
    ]);
    const seen = Object.fromEntries(result.functions.map((fn) => [fn.address, fn]));
    expect({
      numaOfVf: seen['0000:3b:02.0']?.numaNode,
      group: seen['0000:3b:02.3']?.iommuGroup,
      vendorOfVf: seen['0000:d8:00.3']?.vendor,
      read: ['0000:d8:00.2', '0000:00:1f.0'].filter((address) => address in seen),
    }).toEqual({ numaOfVf: undefined, group: undefined, vendorOfVf: undefined, read: [] });
  });

  it('survives arbitrary attribute contents', async () => {
    const names = [
      'class',
      'vendor',
      'device',
      'numa_node',
      'sriov_numvfs',
      'sriov_totalvfs',
      'sriov_offset',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('0000:3b:00.0', '0000:3b:02.1', '0000:d8:00.0', '0000:d8:00.2'),
        fc.constantFrom(...names, 'sriov_stride', 'sriov_vf_device', 'acpi_index'),
        fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', '-1', '0x', '99999999999999999999')),
        async (address, name, content) => {
          attr(address, name, content);
          const result = await scan();
          expect(Array.isArray(result.functions)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
