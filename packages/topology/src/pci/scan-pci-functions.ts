import { posix } from 'node:path';
import type { Sysfs } from '../sysfs/create-sysfs';
import { formatSysfsHex, parseSysfsHex, parseSysfsInt } from '../sysfs/sysfs-number';
import { isPciAddress, parsePciAddress } from './pci-address';
import { pciePlacementFromPath } from './pcie-path';
import { readVirtfnLinks, type VirtfnLink } from './read-virtfn-links';

/** SR-IOV capability of a physical function, as its sysfs attributes say. */
export interface PciSriovCapability {
  /** sriov_totalvfs. */
  readonly totalVfs: number;
  /** sriov_numvfs (0 when unreadable). */
  readonly numVfs: number;
  /** sriov_offset and sriov_stride: the routing-ID formula of its VFs. */
  readonly offset?: number;
  readonly stride?: number;
  /** sriov_vf_device: the device ID of every VF ("0x154c"). */
  readonly vfDevice?: string;
}

/** One PCI function as {@link scanPciFunctions} reads it; IDs are "0x"-prefixed lower-case hex, as in sysfs. */
export interface PciFunction {
  /** "0000:3b:02.0". */
  readonly address: string;
  /** Its real directory relative to the sysfs root: read more attributes there (no link to resolve). */
  readonly sysfsPath: string;
  /** The names in that directory (`net`, `infiniband`, `driver`, …), so absent things are not read. */
  readonly entries: ReadonlySet<string>;
  /** The class code (0x020000); a VF's is its PF's. */
  readonly pciClass: number;
  /** "0x8086"; a VF's is its PF's. */
  readonly vendor?: string;
  /** "0x154c"; a VF's is its PF's `sriov_vf_device` when that is readable. */
  readonly device?: string;
  /** The bound driver ("iavf"); undefined when unbound. */
  readonly driver?: string;
  /** NUMA node; undefined for -1 or garbage; a VF's is its PF's. */
  readonly numaNode?: number;
  readonly iommuGroup?: number;
  /** Content of `acpi_index`, when present and not empty. */
  readonly acpiIndex?: string;
  /** Set on SR-IOV capable physical functions. */
  readonly sriov?: PciSriovCapability;
  /** Set on virtual functions: the PF and N of its `virtfnN` link. */
  readonly vf?: { readonly pfAddress: string; readonly index: number };
  /** Bridges from the root port down to the function's parent; [] on the root bus or when unknown. */
  readonly pciePath: readonly string[];
}

/** Options of {@link scanPciFunctions}. */
export interface ScanPciFunctionsOptions {
  /** Which physical (and plain) functions are read, by class code; default all. VFs follow their PF. */
  readonly select?: (pciClass: number) => boolean;
  /** Functions read between two yields to the event loop (default 64). */
  readonly yieldEvery?: number;
  /**
   * Real directories of functions by address, kept by the caller from scan to scan (the call fills it): a
   * function whose bus link still names the same directory costs a readlink instead of a realpath.
   */
  readonly knownPaths?: Map<string, string>;
}

/** The functions read (sorted by address) and what was wrong on the way. */
export interface PciFunctionScan {
  readonly functions: readonly PciFunction[];
  readonly warnings: readonly string[];
}

const PCI = 'bus/pci/devices';

interface FunctionDir {
  readonly address: string;
  readonly path: string;
  readonly entries: ReadonlySet<string>;
}

/**
 * Reads the PCI functions of a machine fast enough for thousands of SR-IOV VFs (2,048 in well under a
 * second): each function's bus link is resolved once and everything else is read under the real directory
 * (one open per attribute with `createSysfs`). Physical and plain functions whose class `select` accepts are
 * read in full; their VFs are read lean (driver, IOMMU group, acpi_index of their own; class, vendor, NUMA
 * node and, through `sriov_vf_device`, device ID from the PF). A VF's index comes from the PF's
 * `sriov_offset`/`sriov_stride` (the PCIe routing-ID formula) when every computed function exists and is a
 * VF, otherwise from the `virtfnN` links. Never throws: garbage degrades a field with a warning, and a VF its
 * PF does not list is skipped with one. Yields to the event loop between batches of functions. Pass the same
 * `knownPaths` map to every scan of a long-lived reader to save a realpath per function.
 */
export async function scanPciFunctions(
  sysfs: Sysfs,
  options: ScanPciFunctionsOptions = {},
): Promise<PciFunctionScan> {
  const select = options.select ?? (() => true);
  const batch = Math.max(1, options.yieldEvery ?? 64);
  let read = 0;
  const pause = async (): Promise<void> => {
    if (++read % batch === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  const warnings: string[] = [];
  const dirs = new Map<string, FunctionDir>();
  const known = options.knownPaths;
  for (const address of (await sysfs.list(PCI)).filter(isPciAddress)) {
    const before = known?.get(address);
    const target = before === undefined ? undefined : await sysfs.readLink(`${PCI}/${address}`);
    // Reads under `path` still go through the reader's own checks (its link-free directories or a realpath).
    const same = target !== undefined && posix.join(PCI, target) === before;
    const path = same ? before : await sysfs.resolve(`${PCI}/${address}`);
    if (path === undefined) known?.delete(address);
    else known?.set(address, path);
    if (path !== undefined) dirs.set(address, { address, path, entries: new Set(await sysfs.list(path)) });
    await pause();
  }
  const all = [...dirs.values()];

  const heads = new Map<string, PciFunction>();
  for (const dir of all.filter((d) => !d.entries.has('physfn'))) {
    const fn = await readHead(sysfs, dir, select, warnings);
    if (fn !== undefined) heads.set(fn.address, fn);
    await pause();
  }
  const owners = new Map<string, { pf: PciFunction; index: number }>();
  for (const pf of heads.values()) {
    for (const vf of await vfsOf(sysfs, pf, dirs)) owners.set(vf.address, { pf, index: vf.index });
  }
  const functions = [...heads.values()];
  for (const dir of all.filter((d) => d.entries.has('physfn'))) {
    const owner = owners.get(dir.address);
    if (owner !== undefined) {
      functions.push(await readVf(sysfs, dir, owner.pf, owner.index, warnings));
      await pause();
      continue;
    }
    const pf = await sysfs.readLinkName(`${dir.path}/physfn`);
    if (pf !== undefined && heads.has(pf)) {
      warnings.push(`${dir.address}: its PF ${pf} does not list it among its virtfnN links; VF skipped`);
    }
  }
  functions.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { functions, warnings };
}

/** Reads a physical or plain function in full; undefined when its class is unreadable or not selected. */
async function readHead(
  sysfs: Sysfs,
  dir: FunctionDir,
  select: (pciClass: number) => boolean,
  warnings: string[],
): Promise<PciFunction | undefined> {
  const { address, path, entries } = dir;
  const classText = entries.has('class') ? await sysfs.read(`${path}/class`) : undefined;
  const pciClass = classText === undefined ? undefined : parseSysfsHex(classText);
  if (pciClass === undefined || !select(pciClass)) return undefined;
  const vendor = hexId(await sysfs.read(`${path}/vendor`));
  const device = hexId(await sysfs.read(`${path}/device`));
  const numaText = await sysfs.read(`${path}/numa_node`);
  const numa = numaText === undefined ? undefined : parseSysfsInt(numaText);
  if (numaText !== undefined && numa === undefined) {
    warnings.push(`${address}: numa_node is not a number ("${numaText.slice(0, 40)}"); topology unknown`);
  }
  const sriov = entries.has('sriov_totalvfs') ? await readSriov(sysfs, path) : undefined;
  return {
    ...(await readOwn(sysfs, dir, warnings)),
    pciClass,
    ...optional('vendor', vendor),
    ...optional('device', device),
    ...optional('numaNode', numa !== undefined && numa >= 0 ? numa : undefined),
    ...(sriov !== undefined ? { sriov } : {}),
  };
}

/** Reads a VF lean: its own driver, IOMMU group and acpi_index; the rest from its PF. */
async function readVf(
  sysfs: Sysfs,
  dir: FunctionDir,
  pf: PciFunction,
  index: number,
  warnings: string[],
): Promise<PciFunction> {
  const device = pf.sriov?.vfDevice ?? hexId(await sysfs.read(`${dir.path}/device`));
  return {
    ...(await readOwn(sysfs, dir, warnings)),
    pciClass: pf.pciClass,
    ...optional('vendor', pf.vendor),
    ...optional('device', device),
    ...optional('numaNode', pf.numaNode),
    vf: { pfAddress: pf.address, index },
  };
}

type OwnFields = Pick<
  PciFunction,
  'address' | 'sysfsPath' | 'entries' | 'driver' | 'iommuGroup' | 'acpiIndex' | 'pciePath'
>;

/** What every function has of its own: driver, IOMMU group, acpi_index and place in the PCIe tree. */
async function readOwn(sysfs: Sysfs, dir: FunctionDir, warnings: string[]): Promise<OwnFields> {
  const { address, path, entries } = dir;
  const driver = entries.has('driver') ? await sysfs.readLinkName(`${path}/driver`) : undefined;
  const groupName = entries.has('iommu_group') ? await sysfs.readLinkName(`${path}/iommu_group`) : undefined;
  const group = groupName === undefined ? undefined : parseSysfsInt(groupName);
  if (groupName !== undefined && group === undefined) {
    warnings.push(`${address}: iommu_group link names "${groupName.slice(0, 40)}", not a number`);
  }
  const acpiIndex = entries.has('acpi_index') ? await sysfs.read(`${path}/acpi_index`) : undefined;
  return {
    address,
    sysfsPath: path,
    entries,
    ...optional('driver', driver),
    ...optional('iommuGroup', group),
    ...optional('acpiIndex', acpiIndex === '' ? undefined : acpiIndex),
    pciePath: pciePlacementFromPath(path, address)?.bridges ?? [],
  };
}

async function readSriov(sysfs: Sysfs, path: string): Promise<PciSriovCapability | undefined> {
  const totalVfs = await sysfs.readInt(`${path}/sriov_totalvfs`);
  if (totalVfs === undefined) return undefined;
  const numVfs = await sysfs.readInt(`${path}/sriov_numvfs`);
  const offset = await sysfs.readInt(`${path}/sriov_offset`);
  const stride = await sysfs.readInt(`${path}/sriov_stride`);
  const vfDevice = hexId(await sysfs.read(`${path}/sriov_vf_device`));
  return {
    totalVfs,
    numVfs: numVfs ?? 0,
    ...optional('offset', offset),
    ...optional('stride', stride),
    ...optional('vfDevice', vfDevice),
  };
}

/** The VFs of a PF: by the routing-ID formula when the device list agrees, else from the `virtfnN` links. */
async function vfsOf(
  sysfs: Sysfs,
  pf: PciFunction,
  dirs: ReadonlyMap<string, FunctionDir>,
): Promise<VirtfnLink[]> {
  const sriov = pf.sriov;
  if (sriov === undefined || sriov.numVfs <= 0) return [];
  const computed = computedVfs(pf.address, sriov);
  if (computed?.every((vf) => dirs.get(vf.address)?.entries.has('physfn'))) return computed;
  return readVirtfnLinks(sysfs, pf.sysfsPath, [...pf.entries]);
}

/** VF i = PF routing ID + offset + i × stride; undefined without usable offset/stride or past bus ff. */
function computedVfs(pfAddress: string, sriov: PciSriovCapability): VirtfnLink[] | undefined {
  const parsed = parsePciAddress(pfAddress);
  const { offset, stride } = sriov;
  if (parsed === undefined || offset === undefined || stride === undefined || offset <= 0) return undefined;
  const rid = (parsed.bus << 8) | (parsed.device << 3) | parsed.function;
  const domain = pfAddress.slice(0, pfAddress.indexOf(':'));
  const hex = (n: number): string => n.toString(16).padStart(2, '0');
  const out: VirtfnLink[] = [];
  for (let index = 0; index < sriov.numVfs; index++) {
    const vfRid = rid + offset + index * stride;
    if (vfRid > 0xffff) return undefined;
    out.push({ index, address: `${domain}:${hex(vfRid >> 8)}:${hex((vfRid >> 3) & 0x1f)}.${vfRid & 7}` });
  }
  return out;
}

/** "0x8086", "8086 " → "0x8086"; undefined for garbage. */
function hexId(text: string | undefined): string | undefined {
  const value = text === undefined ? undefined : parseSysfsHex(text);
  return value === undefined ? undefined : formatSysfsHex(value, 4);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
