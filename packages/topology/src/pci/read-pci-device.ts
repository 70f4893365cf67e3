import type { Sysfs } from '../sysfs/create-sysfs';
import { formatSysfsHex, parseSysfsHex, parseSysfsInt } from '../sysfs/sysfs-number';
import { nodeOfCpus } from '../numa/read-numa-topology';
import type { NumaTopology } from '../numa/read-numa-topology';
import { isPciAddress } from './pci-address';
import { pciePlacementFromPath } from './pcie-path';
import { readVirtfnLinks } from './read-virtfn-links';

/** How a device's NUMA node was learned. */
export type NumaSource = 'numa_node' | 'local_cpulist' | 'unknown';

/** SR-IOV facts of a physical function. */
export interface SriovInfo {
  /** sriov_totalvfs: the most VFs the PF can have. */
  readonly totalVfs: number;
  /** sriov_numvfs: VFs enabled now. */
  readonly numVfs: number;
  /** virtfn<N> links: VF index and address. */
  readonly vfs: readonly { readonly index: number; readonly address: string }[];
}

/** A PCI function as read from /sys/bus/pci/devices/<address>. IDs are lower-case hex strings as in sysfs. */
export interface PciDevice {
  /** "0000:3b:00.0". */
  readonly address: string;
  /** Resolved directory relative to the sysfs root, e.g. "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0". */
  readonly sysfsPath: string;
  /** "0x8086" (4 hex digits). */
  readonly vendor?: string;
  readonly device?: string;
  readonly subsystemVendor?: string;
  readonly subsystemDevice?: string;
  /** "0x020000" (6 hex digits: class, subclass, prog-if). */
  readonly class?: string;
  /** "0x02" (2 hex digits). */
  readonly revision?: string;
  /** Name of the bound driver ("i40e", "vfio-pci"); undefined when unbound. */
  readonly driver?: string;
  /** NUMA node; undefined when unknown. */
  readonly numaNode?: number;
  readonly numaSource: NumaSource;
  /** local_cpulist, when readable. */
  readonly localCpus?: readonly number[];
  /** IOMMU group number (the name of the iommu_group link's target). */
  readonly iommuGroup?: number;
  /** Present on SR-IOV capable physical functions. */
  readonly sriov?: SriovInfo;
  /** The PF's address, on virtual functions. */
  readonly physfn?: string;
  /** Root complex directory name ("pci0000:3a"); undefined when not found in the path. */
  readonly rootComplex?: string;
  /** Bridges from the root port down to the parent; [] on the root bus or when unknown. */
  readonly pciePath: readonly string[];
}

/** What is read of every function before the rest: enough to tell whether a scan wants it. */
export type PciIdentity = Pick<PciDevice, 'address' | 'vendor' | 'class' | 'driver'>;

/** One device and what went wrong while reading it. */
export interface PciDeviceRead {
  /** Undefined when the device had to be skipped (see warnings). */
  readonly device?: PciDevice;
  readonly warnings: readonly string[];
}

/**
 * Reads one PCI function; never throws. `numa` enables the local_cpulist fallback for numa_node -1. With `select`,
 * only the function's vendor, class and driver are read first, and the rest only when `select` accepts them; a
 * function it refuses reads as no device and no warning beyond those of the attributes read.
 */
export async function readPciDevice(
  sysfs: Sysfs,
  address: string,
  numa?: NumaTopology,
  select?: (identity: PciIdentity) => boolean,
): Promise<PciDeviceRead> {
  const warnings: string[] = [];
  const where = `bus/pci/devices/${address}`;
  if (!isPciAddress(address)) return { warnings: [`${where}: not a PCI address; skipped`] };
  const located = await sysfs.locate(where);
  if (!located.ok) return { warnings: [`${located.message}; device skipped`] };
  const dir = located.path;
  try {
    // Warnings are added after the reads finish, in attribute order, so that they come out deterministic.
    const hexAttributes = async (
      names: readonly string[],
      digits: readonly number[],
      has: (name: string) => boolean,
    ): Promise<(string | undefined)[]> => {
      const texts = await Promise.all(
        names.map((name) => (has(name) ? sysfs.read(`${dir}/${name}`) : undefined)),
      );
      return texts.map((text, i) => {
        if (text === undefined) return undefined;
        const value = parseSysfsHex(text);
        if (value === undefined) warnings.push(`${address}: ${names[i]} is not hex ("${text.slice(0, 40)}")`);
        return value === undefined ? undefined : formatSysfsHex(value, digits[i] as number);
      });
    };
    // The identity first, read directly: what `select` decides on.
    const [vendor, klass] = await hexAttributes(['vendor', 'class'], [4, 6], () => true);
    const driver = await sysfs.readLinkName(`${dir}/driver`);
    if (select !== undefined && !select({ address, ...defined({ vendor, class: klass, driver }) }))
      return { warnings };
    // Then the listing, so that what the function lacks (sriov_* and physfn on most) is not opened: no failed
    // syscall, nor the error Node builds for it.
    const entries = await sysfs.list(dir);
    const present = new Set(entries);
    const has = (name: string): boolean => present.has(name);
    const when = <T>(name: string, read: (path: string) => Promise<T | undefined>): Promise<T | undefined> =>
      has(name) ? read(`${dir}/${name}`) : Promise.resolve(undefined);
    const [device, subsystemVendor, subsystemDevice, revision] = await hexAttributes(
      ['device', 'subsystem_vendor', 'subsystem_device', 'revision'],
      [4, 4, 4, 2],
      has,
    );
    const [numaText, localCpus, iommuName, totalVfs, numVfs, physfn] = await Promise.all([
      when('numa_node', sysfs.read),
      when('local_cpulist', sysfs.readCpuList),
      when('iommu_group', sysfs.readLinkName),
      when('sriov_totalvfs', sysfs.readInt),
      when('sriov_numvfs', sysfs.readInt),
      when('physfn', sysfs.readLinkName),
    ]);
    const { numaNode, numaSource } = chooseNumaNode(address, numaText, localCpus, numa, warnings);
    const iommuGroup = iommuName === undefined ? undefined : parseSysfsInt(iommuName);
    if (iommuName !== undefined && iommuGroup === undefined) {
      warnings.push(`${address}: iommu_group link names "${iommuName}", not a number`);
    }
    const sriov = totalVfs === undefined ? undefined : await readSriov(sysfs, dir, entries, totalVfs, numVfs);
    const placement = pciePlacementFromPath(dir, address);
    if (!placement) warnings.push(`${address}: ${dir} is not under a PCI root complex; PCIe path unknown`);
    const result: PciDevice = {
      address,
      sysfsPath: dir,
      ...defined({ vendor, device, subsystemVendor, subsystemDevice, class: klass, revision, driver }),
      ...(numaNode !== undefined ? { numaNode } : {}),
      numaSource,
      ...(localCpus !== undefined ? { localCpus } : {}),
      ...(iommuGroup !== undefined ? { iommuGroup } : {}),
      ...(sriov !== undefined ? { sriov } : {}),
      ...(physfn !== undefined && isPciAddress(physfn) ? { physfn } : {}),
      ...(placement?.rootComplex !== undefined ? { rootComplex: placement.rootComplex } : {}),
      pciePath: placement?.bridges ?? [],
    };
    return { device: result, warnings };
  } catch (error) {
    return { warnings: [...warnings, `${address}: ${String(error)}; device skipped`] };
  }
}

function chooseNumaNode(
  address: string,
  numaText: string | undefined,
  localCpus: readonly number[] | undefined,
  numa: NumaTopology | undefined,
  warnings: string[],
): { numaNode?: number; numaSource: NumaSource } {
  const value = numaText === undefined ? undefined : parseSysfsInt(numaText);
  if (numaText !== undefined && value === undefined) {
    warnings.push(`${address}: numa_node is not a number ("${numaText.slice(0, 40)}")`);
  }
  if (value !== undefined && value >= 0) {
    if (numa && numa.nodes.length > 0 && !numa.nodes.some((n) => n.id === value)) {
      warnings.push(`${address}: numa_node ${value} is not among the machine's NUMA nodes`);
    }
    return { numaNode: value, numaSource: 'numa_node' };
  }
  if (numa && localCpus && localCpus.length > 0) {
    const node = nodeOfCpus(numa, localCpus);
    if (node !== undefined) return { numaNode: node, numaSource: 'local_cpulist' };
  }
  return { numaSource: 'unknown' };
}

async function readSriov(
  sysfs: Sysfs,
  dir: string,
  entries: readonly string[],
  totalVfs: number,
  numVfs: number | undefined,
): Promise<SriovInfo> {
  return { totalVfs, numVfs: numVfs ?? 0, vfs: await readVirtfnLinks(sysfs, dir, entries) };
}

function defined<T extends Record<string, string | undefined>>(values: T): Partial<Record<keyof T, string>> {
  const out: Partial<Record<keyof T, string>> = {};
  for (const key of Object.keys(values) as (keyof T)[]) {
    const value = values[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
