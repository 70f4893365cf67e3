import type { PciDevice } from '../pci/read-pci-device';

/**
 * One PCI function of a fixture machine. The ID, class, revision and driver fields are written as given
 * (defaults: vendor 0x8086, device 0x0000, class 0x000000, revision 0x00, unbound).
 */
export interface PciDeviceSpec extends Pick<
  PciDevice,
  'vendor' | 'device' | 'subsystemVendor' | 'subsystemDevice' | 'class' | 'revision' | 'driver'
> {
  /** Domain:bus:device.function, e.g. "0000:3b:00.0". */
  readonly address: string;
  /** Address of the parent bridge (added before); omitted = directly under the root complex pci<domain>:<bus>. */
  readonly parent?: string;
  /** Content of `numa_node`; default -1. */
  readonly numaNode?: number | string;
  /** Content of `local_cpulist`; default the cpulist of `numaNode` when that node was added. */
  readonly localCpulist?: string;
  readonly iommuGroup?: number;
  readonly sriovTotalVfs?: number;
  /** Content of `sriov_numvfs`; default the number of VFs added with `physfn` pointing here (0 before any). */
  readonly sriovNumVfs?: number;
  /** For a VF: the PF's address (added before); creates `physfn` here and `virtfn<vfIndex>` in the PF. */
  readonly physfn?: string;
  readonly vfIndex?: number;
  /** More attribute files, name → content (names may contain "/" for subdirectories). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** How a {@link FixturePciBus} writes into its fixture tree (paths relative to the sysfs root). */
export interface FixtureTree {
  /** Writes a file, parents created. */
  write(path: string, content: string): void;
  /** Creates a symlink at `path` pointing, by a relative target, at `to`. */
  linkTo(path: string, to: string): void;
}

/** The PCI functions of a fixture machine. */
export interface FixturePciBus {
  /** Adds a PCI function with its attributes and links; returns its root-relative directory. */
  add(spec: PciDeviceSpec): string;
  /** Root-relative directory of a PCI function added before. */
  dir(address: string): string;
}

/**
 * Creates the PCI bus of a fixture machine: functions under their bridges, `bus/pci` links, drivers, IOMMU
 * groups and SR-IOV links. `cpusOf(node)` is the cpulist of a NUMA node added before (undefined otherwise).
 */
export function createFixturePciBus(
  tree: FixtureTree,
  cpusOf: (node: number) => string | undefined,
): FixturePciBus {
  const { write, linkTo } = tree;
  const pciDirs = new Map<string, string>();
  const vfCounts = new Map<string, number>();
  const explicitNumVfs = new Set<string>();

  /** A VF's `physfn` link, the PF's `virtfn<index>` and, unless given, the PF's `sriov_numvfs`. */
  const linkVf = (dir: string, address: string, physfn: string, vfIndex: number | undefined): void => {
    const pfDir = pciDirs.get(physfn);
    if (pfDir === undefined) throw new Error(`fixture: PF ${physfn} of ${address} was not added`);
    const index = vfIndex ?? vfCounts.get(physfn) ?? 0;
    vfCounts.set(physfn, (vfCounts.get(physfn) ?? 0) + 1);
    linkTo(`${dir}/physfn`, pfDir);
    linkTo(`${pfDir}/virtfn${index}`, dir);
    if (!explicitNumVfs.has(physfn)) write(`${pfDir}/sriov_numvfs`, `${vfCounts.get(physfn)}\n`);
  };

  return {
    add(spec) {
      const address = spec.address;
      const parentDir =
        spec.parent === undefined
          ? `devices/pci${address.slice(0, address.lastIndexOf(':'))}`
          : pciDirs.get(spec.parent);
      if (parentDir === undefined)
        throw new Error(`fixture: parent ${spec.parent} of ${address} was not added`);
      const dir = `${parentDir}/${address}`;
      pciDirs.set(address, dir);
      const numa = spec.numaNode ?? -1;
      const nodeCpus = typeof numa === 'number' ? cpusOf(numa) : undefined;
      const files: Record<string, string> = {
        vendor: spec.vendor ?? '0x8086',
        device: spec.device ?? '0x0000',
        subsystem_vendor: spec.subsystemVendor ?? spec.vendor ?? '0x8086',
        subsystem_device: spec.subsystemDevice ?? '0x0000',
        class: spec.class ?? '0x000000',
        revision: spec.revision ?? '0x00',
        numa_node: String(numa),
        enable: '1',
        ...(spec.localCpulist !== undefined || nodeCpus !== undefined
          ? { local_cpulist: spec.localCpulist ?? nodeCpus ?? '' }
          : {}),
        ...(spec.sriovTotalVfs !== undefined
          ? { sriov_totalvfs: String(spec.sriovTotalVfs), sriov_numvfs: String(spec.sriovNumVfs ?? 0) }
          : {}),
        ...spec.attributes,
      };
      if (spec.sriovNumVfs !== undefined) explicitNumVfs.add(address);
      for (const [name, content] of Object.entries(files)) write(`${dir}/${name}`, `${content}\n`);
      linkTo(`bus/pci/devices/${address}`, dir);
      linkTo(`${dir}/subsystem`, 'bus/pci');
      if (spec.driver !== undefined) {
        linkTo(`${dir}/driver`, `bus/pci/drivers/${spec.driver}`);
        linkTo(`bus/pci/drivers/${spec.driver}/${address}`, dir);
      }
      if (spec.iommuGroup !== undefined) {
        linkTo(`${dir}/iommu_group`, `kernel/iommu_groups/${spec.iommuGroup}`);
        linkTo(`kernel/iommu_groups/${spec.iommuGroup}/devices/${address}`, dir);
      }
      if (spec.physfn !== undefined) linkVf(dir, address, spec.physfn, spec.vfIndex);
      return dir;
    },
    dir(address) {
      const dir = pciDirs.get(address);
      if (dir === undefined) throw new Error(`fixture: ${address} was not added`);
      return dir;
    },
  };
}
