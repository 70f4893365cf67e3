import { createSysfs, type Sysfs } from '../sysfs/create-sysfs';
import { createSysfsFixture } from '../testing/sysfs-fixture';
import type { SysfsFixture } from '../testing/sysfs-fixture';
import { addTwoSocketMachine } from '../testing/two-socket-machine';
import type { TwoSocketMachine } from '../testing/two-socket-machine';
import { choosePreferredAllocation } from '../allocation/choose-preferred-allocation';
import { rankLocality } from '../allocation/locality-rank';
import { enumeratePciDevices } from './enumerate-pci-devices';
import { pciDeviceLocality } from './pci-locality';
import type { PciDevice } from './read-pci-device';

describe('enumeratePciDevices on a 2-socket machine with switches, SR-IOV and memory-only nodes', () => {
  let fixture: SysfsFixture;
  let machine: TwoSocketMachine;
  let byAddress: Map<string, PciDevice>;
  let warnings: readonly string[];

  beforeAll(async () => {
    fixture = createSysfsFixture();
    machine = addTwoSocketMachine(fixture);
    const scan = await enumeratePciDevices(createSysfs({ root: fixture.root }));
    byAddress = new Map(scan.devices.map((d) => [d.address, d]));
    warnings = scan.warnings;
  });
  afterAll(() => fixture.remove());
  const get = (address: string): PciDevice => {
    const device = byAddress.get(address);
    if (!device) throw new Error(`${address} not enumerated`);
    return device;
  };

  it('finds every function without warnings', () => {
    expect(warnings).toEqual([]);
    expect(byAddress.size).toBe(20);
  });

  it('reads IDs, class, revision, driver, NUMA node and IOMMU group', () => {
    expect(get(machine.gpus[0] as string)).toEqual({
      address: '0000:03:00.0',
      sysfsPath: 'devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0',
      vendor: '0x10de',
      device: '0x2330',
      subsystemVendor: '0x10de',
      subsystemDevice: '0x16c1',
      class: '0x030200',
      revision: '0xa1',
      driver: 'nvidia',
      numaNode: 0,
      numaSource: 'numa_node',
      localCpus: Array.from({ length: 16 }, (_, i) => i),
      iommuGroup: 10,
      rootComplex: 'pci0000:00',
      pciePath: ['0000:00:01.0', '0000:01:00.0', '0000:02:08.0'],
    });
  });

  it('reads SR-IOV PFs and VFs', () => {
    expect(get(machine.x710.pf).sriov).toEqual({
      totalVfs: 64,
      numVfs: 2,
      vfs: [
        { index: 0, address: '0000:05:02.0' },
        { index: 1, address: '0000:05:02.1' },
      ],
    });
    expect(get('0000:05:02.1')).toMatchObject({ physfn: machine.x710.pf, driver: 'iavf', device: '0x154c' });
    expect(get('0000:05:02.1').sriov).toBeUndefined();
    expect(get(machine.connectx.pf).sriov?.vfs).toEqual([{ index: 0, address: '0000:84:00.2' }]);
  });

  it('falls back to local_cpulist when numa_node is -1', () => {
    expect(get(machine.nvme)).toMatchObject({ numaNode: 1, numaSource: 'local_cpulist' });
  });

  it('ranks locality: same switch < same root port < same NUMA node < other NUMA node', () => {
    const rank = (a: PciDevice, b: PciDevice) => rankLocality(pciDeviceLocality(a), pciDeviceLocality(b));
    const [gpu0, gpu1, gpu2] = machine.gpus.map(get) as [PciDevice, PciDevice, PciDevice];
    expect(rank(gpu0, gpu1)).toBe('same-switch');
    expect(rank(gpu2, get(machine.connectx.pf))).toBe('same-switch');
    expect(rank(get(machine.x710.pf), get('0000:05:02.0'))).toBe('same-root-port');
    expect(rank(gpu0, get(machine.x710.pf))).toBe('same-numa-node');
    expect(rank(gpu0, gpu2)).toBe('other-numa-node');
  });

  it('reads in full only the functions `select` accepts, and opens nothing a directory lacks', async () => {
    const opened: string[] = [];
    const sysfs = recordingSysfs(createSysfs({ root: fixture.root }), opened);
    const nvidia = await enumeratePciDevices(sysfs, { select: (pci) => pci.vendor === '0x10de' });
    expect(nvidia.devices.map((d) => d.address)).toEqual(machine.gpus);
    expect(nvidia.devices).toEqual(machine.gpus.map(get));
    expect(nvidia.warnings).toEqual([]);
    // A refused function: its vendor, class and driver link, nothing else, not even its listing.
    const nvme = machine.nvme;
    const nvmeReads = opened
      .filter((path) => path.includes(`/${nvme}/`))
      .map((path) => path.split('/').pop());
    expect(nvmeReads.sort()).toEqual(['class', 'driver', 'vendor']);
    // No function was asked for an attribute it does not have (the GPUs have no SR-IOV).
    expect(opened.filter((path) => /\/(sriov_totalvfs|sriov_numvfs|physfn)$/.test(path))).toEqual([]);
  });

  it('feeds the allocation policy', () => {
    expect(pciDeviceLocality(get(machine.nvme)).numaNodes).toEqual([1]);
    const locality = new Map(machine.gpus.map((a) => [a, pciDeviceLocality(get(a))]));
    expect(
      choosePreferredAllocation({ available: [...machine.gpus], mustInclude: [], size: 2, locality }),
    ).toEqual(['0000:03:00.0', '0000:04:00.0']);
  });
});

/** `sysfs` with every path it is asked to read or follow recorded in `opened` (a listing of DIR as `DIR/*`). */
function recordingSysfs(sysfs: Sysfs, opened: string[]): Sysfs {
  const recorded =
    <T>(read: (path: string) => Promise<T>) =>
    (path: string): Promise<T> => {
      opened.push(path);
      return read(path);
    };
  return {
    ...sysfs,
    read: recorded(sysfs.read),
    readInt: recorded(sysfs.readInt),
    readHex: recorded(sysfs.readHex),
    readCpuList: recorded(sysfs.readCpuList),
    readCpuMask: recorded(sysfs.readCpuMask),
    readLink: recorded(sysfs.readLink),
    readLinkName: recorded(sysfs.readLinkName),
    list: (path) => {
      opened.push(`${path}/*`);
      return sysfs.list(path);
    },
  };
}
