import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createTempDir } from '../testing/temp-dir';
import { createSysfs } from '../sysfs/create-sysfs';
import { createSysfsFixture } from '../testing/sysfs-fixture';
import type { SysfsFixture } from '../testing/sysfs-fixture';
import { readNumaTopology } from '../numa/read-numa-topology';
import { enumeratePciDevices } from './enumerate-pci-devices';
import { readPciDevice } from './read-pci-device';

describe('readPciDevice on broken sysfs', () => {
  let fixture: SysfsFixture;
  beforeEach(() => {
    fixture = createSysfsFixture();
    fixture.addNumaNode({ id: 0, cpus: '0-3', distances: [10, 20] });
    fixture.addNumaNode({ id: 1, cpus: '4-7', distances: [20, 10] });
  });
  afterEach(() => fixture.remove());

  it('keeps a device with empty and non-numeric attributes, with unknown values and warnings', async () => {
    fixture.addPciDevice({
      address: '0000:00:05.0',
      numaNode: 'garbage',
      attributes: {
        vendor: '',
        device: 'zzzz',
        class: '0xnothex',
        sriov_totalvfs: 'x',
        local_cpulist: '0-3,4',
      },
    });
    fixture.link(`${fixture.pciDir('0000:00:05.0')}/iommu_group`, '../../../kernel/iommu_groups/abc');
    const sysfs = createSysfs({ root: fixture.root });
    const { device, warnings } = await readPciDevice(sysfs, '0000:00:05.0', await readNumaTopology(sysfs));
    expect(device).toMatchObject({ address: '0000:00:05.0', numaSource: 'unknown', pciePath: [] });
    expect(device?.vendor).toBeUndefined();
    expect(device?.device).toBeUndefined();
    expect(device?.class).toBeUndefined();
    expect(device?.numaNode).toBeUndefined();
    expect(device?.sriov).toBeUndefined();
    expect(device?.iommuGroup).toBeUndefined();
    expect(warnings).toEqual([
      '0000:00:05.0: vendor is not hex ("")',
      '0000:00:05.0: class is not hex ("0xnothex")',
      '0000:00:05.0: device is not hex ("zzzz")',
      '0000:00:05.0: numa_node is not a number ("garbage")',
      '0000:00:05.0: iommu_group link names "abc", not a number',
    ]);
  });

  it('skips devices whose bus link dangles, loops or leaves the root, with a warning each', async () => {
    const outsideDir = createTempDir('kdp-out-');
    const outside = outsideDir.path;
    writeFileSync(join(outside, 'vendor'), '0x8086\n');
    try {
      fixture.addPciDevice({ address: '0000:00:01.0', vendor: '0x8086', numaNode: 1 });
      fixture.link('bus/pci/devices/0000:00:02.0', '../../../devices/pci0000:00/0000:00:02.0');
      fixture.link('bus/pci/devices/0000:00:03.0', '0000:00:03.0');
      fixture.link('bus/pci/devices/0000:00:04.0', outside);
      fixture.link('bus/pci/devices/not-an-address', '../../../devices');
      const scan = await enumeratePciDevices(createSysfs({ root: fixture.root }));
      expect(scan.devices.map((d) => d.address)).toEqual(['0000:00:01.0']);
      expect(scan.devices[0]).toMatchObject({ numaNode: 1, rootComplex: 'pci0000:00', pciePath: [] });
      expect(scan.warnings).toHaveLength(4);
      expect(scan.warnings[0]).toMatch(/0000:00:02.0: dangling symbolic link; device skipped/);
      expect(scan.warnings[1]).toMatch(/0000:00:03.0: symbolic link loop; device skipped/);
      expect(scan.warnings[2]).toMatch(
        /0000:00:04.0 resolves to .*, outside the sysfs root .*; device skipped/,
      );
      expect(scan.warnings[3]).toMatch(/not-an-address: not a PCI address; skipped/);
    } finally {
      outsideDir.remove();
    }
  });

  it('keeps a device whose driver link dangles and whose path has no root complex', async () => {
    fixture.mkdir('devices/platform/odd/0000:00:07.0');
    fixture.write('devices/platform/odd/0000:00:07.0/vendor', '0x1af4\n');
    fixture.link('devices/platform/odd/0000:00:07.0/driver', '../../../../bus/pci/drivers/gone');
    fixture.linkTo('bus/pci/devices/0000:00:07.0', 'devices/platform/odd/0000:00:07.0');
    const { device, warnings } = await readPciDevice(createSysfs({ root: fixture.root }), '0000:00:07.0');
    expect(device).toMatchObject({ vendor: '0x1af4', driver: 'gone', pciePath: [], numaSource: 'unknown' });
    expect(warnings).toEqual([
      '0000:00:07.0: devices/platform/odd/0000:00:07.0 is not under a PCI root complex; PCIe path unknown',
    ]);
  });

  it('never throws whatever the attribute files hold (fuzzed)', async () => {
    const names = [
      'vendor',
      'device',
      'class',
      'revision',
      'numa_node',
      'local_cpulist',
      'sriov_totalvfs',
      'sriov_numvfs',
    ];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...names),
          fc.oneof(fc.string(), fc.stringMatching(/^-?[0-9a-fx, -]{0,12}$/)),
        ),
        async (files) => {
          n++;
          const domain = n.toString(16).padStart(4, '0');
          const address = `${domain}:01:00.0`;
          const dir = `devices/pci${domain}:01/${address}`;
          fixture.mkdir(dir);
          for (const [name, content] of Object.entries(files)) fixture.write(`${dir}/${name}`, content);
          fixture.linkTo(`bus/pci/devices/${address}`, dir);
          const sysfs = createSysfs({ root: fixture.root });
          const { device, warnings } = await readPciDevice(sysfs, address, await readNumaTopology(sysfs));
          expect(device?.address).toBe(address);
          expect(device?.numaNode === undefined || Number.isSafeInteger(device.numaNode)).toBe(true);
          for (const warning of warnings) expect(warning.startsWith(`${address}: `)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
