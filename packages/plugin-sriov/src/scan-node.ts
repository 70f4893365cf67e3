import {
  createSysfs,
  isPciAddress,
  parsePciAddress,
  parseSysfsHex,
  parseSysfsInt,
  pciePlacementFromPath,
  readVirtfnLinks,
  type Sysfs,
} from '@kdp/topology';
import { createBlockingSysfs } from './blocking-sysfs';
import type { FunctionKind, NicFunction, NodeScan, SkippedFunction } from './nic-function';
import { readDefaultRouteInterfaces } from './default-route';
import { readRdmaCharDevices } from './rdma-char-devices';

/** Options of {@link scanNode}. */
export interface ScanNodeOptions {
  /** Reader confined to --sysfs-root. */
  readonly sysfs: Sysfs;
  /** Reader confined to --proc-root (for net/route); default none, so no default-route check. */
  readonly procfs?: Sysfs;
}

const PCI = 'bus/pci/devices';

/** Link type names for the `type` values the selectors care about (ARPHRD_*), as netlink names them. */
const LINK_TYPES: Readonly<Record<number, string>> = { 1: 'ether', 32: 'infiniband', 772: 'loopback' };

/** The pool kind a PCI class belongs to, from its top byte; undefined for everything else. */
export function kindOfClass(klass: number | undefined): FunctionKind | undefined {
  if (klass === undefined) return undefined;
  const base = klass >> 16;
  return base === 0x02 ? 'netDevice' : base === 0x12 ? 'accelerator' : undefined;
}

/** What one function's own directory says; the PF/VF relations and PF facts are joined afterwards. */
type RawFunction = Omit<NicFunction, 'linkType' | 'vf' | 'sriov' | 'pfName' | 'pfCarrier' | 'pciePath'> & {
  readonly ownLinkType?: string;
  readonly ownCarrier?: boolean;
  readonly sriov?: RawSriov;
  readonly pciePath?: readonly string[];
};

interface RawSriov {
  readonly totalVfs: number;
  readonly numVfs: number;
  readonly offset?: number;
  readonly stride?: number;
  /** sriov_vf_device: the device ID of every VF. */
  readonly vfDevice?: string;
}

/**
 * Reads every network (class 0x02) and accelerator (class 0x12) PCI function: IDs, driver, NUMA node, IOMMU
 * group, netdevs and their link type, RDMA and uio devices, PF/VF relations and PF carrier. Never throws:
 * a function that cannot be read is skipped with a warning. PFs with VFs enabled and the interface holding
 * the IPv4 default route are returned in `skipped`, as upstream never offers them.
 *
 * VFs are read lean, since a node may have thousands: vendor, VF device ID (`sriov_vf_device`), NUMA node,
 * link type and placement come from their PF; only the driver, netdevs, RDMA devices and IOMMU group are
 * read per VF. VF indexes come from the PF's `sriov_offset`/`sriov_stride` (the PCIe routing-ID formula),
 * checked against the device list, with the `virtfnN` links as the fallback.
 */
export async function scanNode(options: ScanNodeOptions): Promise<NodeScan> {
  const { sysfs } = options;
  const warnings: string[] = [];
  const names = (await sysfs.list(PCI)).filter((name) => isPciAddress(name));
  const [entryLists, defaultRoute] = await Promise.all([
    Promise.all(names.map((address) => sysfs.list(`${PCI}/${address}`))),
    options.procfs ? readDefaultRouteInterfaces(options.procfs) : Promise.resolve(new Set<string>()),
  ]);
  const entries = new Map<string, ReadonlySet<string>>();
  names.forEach((address, i) => entries.set(address, new Set(entryLists[i])));

  // Physical (and plain) functions first: VFs inherit most facts from them.
  const heads = names.filter((address) => !entries.get(address)?.has('physfn'));
  const headRaws = await Promise.all(
    heads.map((address) => readFunction(sysfs, address, entries.get(address) ?? new Set(), warnings)),
  );
  const byAddress = new Map<string, RawFunction>();
  for (const raw of headRaws) if (raw) byAddress.set(raw.address, raw);

  // VF index and PF of every VF of a candidate PF.
  const vfOf = new Map<string, { pf: RawFunction; index: number }>();
  await Promise.all(
    [...byAddress.values()]
      .filter((raw) => raw.sriov !== undefined)
      .map(async (pf) => {
        for (const vf of await vfsOf(sysfs, pf, entries)) vfOf.set(vf.address, { pf, index: vf.index });
      }),
  );
  const vfAddresses = names.filter((address) => entries.get(address)?.has('physfn'));
  const vfRaws = await Promise.all(
    vfAddresses.map((address) => {
      const owner = vfOf.get(address);
      return owner === undefined
        ? undefined
        : readVf(sysfs, address, entries.get(address) ?? new Set(), owner.pf);
    }),
  );
  for (const raw of vfRaws) if (raw) byAddress.set(raw.address, raw);
  // A VF whose candidate PF does not list it (a missing virtfnN link) cannot get its index: say so.
  const orphans = vfAddresses.filter((address) => !vfOf.has(address));
  const orphanPfs = await Promise.all(
    orphans.map((address) => sysfs.readLinkName(`${PCI}/${address}/physfn`)),
  );
  orphans.forEach((address, i) => {
    const pf = orphanPfs[i];
    if (pf !== undefined && byAddress.has(pf)) {
      warnings.push(`${address}: its PF ${pf} does not list it among its virtfnN links; VF skipped`);
    }
  });

  const functions: NicFunction[] = [];
  const skipped: SkippedFunction[] = [];
  for (const raw of byAddress.values()) {
    const owner = vfOf.get(raw.address);
    const pf = owner?.pf;
    const vf = owner === undefined ? undefined : { pfAddress: owner.pf.address, index: owner.index };
    const pfName = pf !== undefined ? pf.netdevs[0] : raw.netdevs[0];
    const pfCarrier = pf !== undefined ? pf.ownCarrier : raw.ownCarrier;
    const linkType = raw.ownLinkType ?? pf?.ownLinkType;
    const pciePath = raw.pciePath ?? pf?.pciePath ?? [];
    const fn: NicFunction = {
      address: raw.address,
      kind: raw.kind,
      ...optional('vendor', raw.vendor),
      ...optional('device', raw.device),
      ...optional('driver', raw.driver),
      ...optional('numaNode', raw.numaNode),
      ...optional('iommuGroup', raw.iommuGroup),
      noIommu: raw.noIommu,
      ...optional('acpiIndex', raw.acpiIndex),
      netdevs: raw.netdevs,
      ...optional('linkType', linkType),
      rdmaDevices: raw.rdmaDevices,
      uioDevices: raw.uioDevices,
      ...(vf !== undefined ? { vf } : {}),
      ...(raw.sriov !== undefined
        ? { sriov: { totalVfs: raw.sriov.totalVfs, numVfs: raw.sriov.numVfs } }
        : {}),
      ...optional('pfName', pfName),
      ...optional('pfCarrier', pfCarrier),
      pciePath,
    };
    const route = raw.netdevs.find((name) => defaultRoute.has(name));
    if (raw.sriov !== undefined && raw.sriov.numVfs > 0) {
      skipped.push({
        address: raw.address,
        reason: `physical function with ${raw.sriov.numVfs} VFs enabled; its VFs are offered instead`,
      });
    } else if (route !== undefined) {
      skipped.push({ address: raw.address, reason: `interface ${route} holds the IPv4 default route` });
    } else {
      functions.push(fn);
    }
  }
  functions.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const rdmaNames = new Set(functions.flatMap((fn) => fn.rdmaDevices));
  const rdmaCharDevices =
    rdmaNames.size > 0 ? await readRdmaCharDevices(sysfs, rdmaNames) : new Map<string, string[]>();
  return { functions, skipped, rdmaCharDevices, warnings };
}

/**
 * Creates the readers for ONE `scanNode` from the command line's roots: confined like `createSysfs`, with
 * synchronous system calls and remembered directories for sysfs (see `createBlockingSysfs`) unless
 * `blocking` is false. Create fresh readers for every scan.
 */
export function createScanReaders(sysfsRoot: string, procRoot: string, blocking = true): ScanNodeOptions {
  return {
    sysfs: blocking
      ? createBlockingSysfs(sysfsRoot, { rememberDirectories: true })
      : createSysfs({ root: sysfsRoot }),
    procfs: createSysfs({ root: procRoot }),
  };
}

/** Reads a physical or plain function in full; undefined when it is no network or accelerator function. */
async function readFunction(
  sysfs: Sysfs,
  address: string,
  has: ReadonlySet<string>,
  warnings: string[],
): Promise<RawFunction | undefined> {
  const dir = `${PCI}/${address}`;
  const classText = has.has('class') ? await sysfs.read(`${dir}/class`) : undefined;
  const kind = kindOfClass(classText === undefined ? undefined : parseSysfsHex(classText));
  if (kind === undefined) return undefined;
  const isPf = has.has('sriov_totalvfs');
  const [vendor, device, driver, numaText, iommuName, acpiIndex, netdevs, rdma, sriov] = await Promise.all([
    sysfs.read(`${dir}/vendor`),
    sysfs.read(`${dir}/device`),
    has.has('driver') ? sysfs.readLinkName(`${dir}/driver`) : undefined,
    sysfs.read(`${dir}/numa_node`),
    has.has('iommu_group') ? sysfs.readLinkName(`${dir}/iommu_group`) : undefined,
    has.has('acpi_index') ? sysfs.read(`${dir}/acpi_index`) : undefined,
    has.has('net') ? sysfs.list(`${dir}/net`) : [],
    has.has('infiniband') ? sysfs.list(`${dir}/infiniband`) : [],
    isPf ? readSriov(sysfs, dir) : undefined,
  ]);
  const numa = numaText === undefined ? undefined : parseSysfsInt(numaText);
  if (numaText !== undefined && numa === undefined) {
    warnings.push(`${address}: numa_node is not a number ("${numaText.slice(0, 40)}"); topology unknown`);
  }
  const group = iommuGroupNumber(address, iommuName, warnings);
  const [linkTypeText, carrierText, extra, resolved] = await Promise.all([
    netdevs[0] === undefined ? undefined : sysfs.read(`${dir}/net/${netdevs[0]}/type`),
    netdevs[0] === undefined ? undefined : sysfs.read(`${dir}/net/${netdevs[0]}/carrier`),
    driverNodes(sysfs, dir, driver, group),
    sysfs.resolve(dir),
  ]);
  const typeNumber = linkTypeText === undefined ? undefined : parseSysfsInt(linkTypeText);
  const placement = resolved === undefined ? undefined : pciePlacementFromPath(resolved, address);
  return {
    address,
    kind,
    ...optional('vendor', hexId(vendor)),
    ...optional('device', hexId(device)),
    ...optional('driver', driver),
    ...optional('numaNode', numa !== undefined && numa >= 0 ? numa : undefined),
    ...optional('iommuGroup', group),
    noIommu: extra.noIommu,
    ...optional('acpiIndex', acpiIndex === '' ? undefined : acpiIndex),
    netdevs,
    ...optional('ownLinkType', linkTypeName(typeNumber)),
    // Reading `carrier` of an interface that is administratively down fails (EINVAL): no carrier.
    ...optional('ownCarrier', netdevs[0] === undefined ? undefined : carrierText === '1'),
    rdmaDevices: rdma,
    uioDevices: extra.uio,
    ...(sriov !== undefined ? { sriov } : {}),
    ...optional('pciePath', placement?.bridges),
  };
}

/** Reads a VF lean: its own driver, netdevs, RDMA devices and IOMMU group; the rest from its PF. */
async function readVf(
  sysfs: Sysfs,
  address: string,
  has: ReadonlySet<string>,
  pf: RawFunction,
): Promise<RawFunction> {
  const dir = `${PCI}/${address}`;
  const [driver, iommuName, netdevs, rdma, device, acpiIndex] = await Promise.all([
    has.has('driver') ? sysfs.readLinkName(`${dir}/driver`) : undefined,
    has.has('iommu_group') ? sysfs.readLinkName(`${dir}/iommu_group`) : undefined,
    has.has('net') ? sysfs.list(`${dir}/net`) : [],
    has.has('infiniband') ? sysfs.list(`${dir}/infiniband`) : [],
    pf.sriov?.vfDevice === undefined ? sysfs.read(`${dir}/device`).then(hexId) : pf.sriov.vfDevice,
    has.has('acpi_index') ? sysfs.read(`${dir}/acpi_index`) : undefined,
  ]);
  const group = iommuGroupNumber(address, iommuName, []);
  const extra = await driverNodes(sysfs, dir, driver, group);
  return {
    address,
    kind: pf.kind,
    ...optional('vendor', pf.vendor),
    ...optional('device', device),
    ...optional('driver', driver),
    ...optional('numaNode', pf.numaNode),
    ...optional('iommuGroup', group),
    noIommu: extra.noIommu,
    ...optional('acpiIndex', acpiIndex === '' ? undefined : acpiIndex),
    netdevs,
    rdmaDevices: rdma,
    uioDevices: extra.uio,
  };
}

function iommuGroupNumber(address: string, name: string | undefined, warnings: string[]): number | undefined {
  const group = name === undefined ? undefined : parseSysfsInt(name);
  if (name !== undefined && group === undefined) {
    warnings.push(`${address}: iommu_group link names "${name.slice(0, 40)}", not a number`);
  }
  return group;
}

/** vfio no-IOMMU mode (a `name` of vfio-noiommu on the group) and uio nodes, read only for those drivers. */
async function driverNodes(
  sysfs: Sysfs,
  dir: string,
  driver: string | undefined,
  group: number | undefined,
): Promise<{ noIommu: boolean; uio: string[] }> {
  if (driver === 'vfio-pci' && group !== undefined) {
    const name = await sysfs.read(`${dir}/iommu_group/name`);
    return { noIommu: name === 'vfio-noiommu', uio: [] };
  }
  if (driver === 'igb_uio' || driver === 'uio_pci_generic') {
    return { noIommu: false, uio: (await sysfs.list(`${dir}/uio`)).filter((name) => /^uio\d+$/.test(name)) };
  }
  return { noIommu: false, uio: [] };
}

function linkTypeName(type: number | undefined): string | undefined {
  return type === undefined ? undefined : (LINK_TYPES[type] ?? `${type}`);
}

async function readSriov(sysfs: Sysfs, dir: string): Promise<RawSriov | undefined> {
  const [totalVfs, numVfs, offset, stride, vfDevice] = await Promise.all([
    sysfs.readInt(`${dir}/sriov_totalvfs`),
    sysfs.readInt(`${dir}/sriov_numvfs`),
    sysfs.readInt(`${dir}/sriov_offset`),
    sysfs.readInt(`${dir}/sriov_stride`),
    sysfs.read(`${dir}/sriov_vf_device`),
  ]);
  if (totalVfs === undefined) return undefined;
  return {
    totalVfs,
    numVfs: numVfs ?? 0,
    ...optional('offset', offset),
    ...optional('stride', stride),
    ...optional('vfDevice', hexId(vfDevice)),
  };
}

/**
 * The VFs of a PF with their indexes: computed from the routing-ID formula (VF i = PF + offset + i × stride)
 * when every computed function exists and is a VF; otherwise read from the `virtfnN` links.
 */
async function vfsOf(
  sysfs: Sysfs,
  pf: RawFunction,
  entries: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<{ readonly index: number; readonly address: string }[]> {
  const sriov = pf.sriov;
  if (sriov === undefined || sriov.numVfs <= 0) return [];
  const computed = computedVfs(pf.address, sriov);
  if (computed !== undefined && computed.every((vf) => entries.get(vf.address)?.has('physfn')))
    return computed;
  return readVirtfnLinks(sysfs, `${PCI}/${pf.address}`);
}

function computedVfs(pfAddress: string, sriov: RawSriov): { index: number; address: string }[] | undefined {
  const parsed = parsePciAddress(pfAddress);
  if (parsed === undefined || sriov.offset === undefined || sriov.stride === undefined || sriov.offset <= 0) {
    return undefined;
  }
  const rid = (parsed.bus << 8) | (parsed.device << 3) | parsed.function;
  const domain = pfAddress.slice(0, pfAddress.indexOf(':'));
  const out: { index: number; address: string }[] = [];
  for (let index = 0; index < sriov.numVfs; index++) {
    const vfRid = rid + sriov.offset + index * sriov.stride;
    if (vfRid > 0xffff) return undefined;
    const bus = (vfRid >> 8).toString(16).padStart(2, '0');
    const device = ((vfRid >> 3) & 0x1f).toString(16).padStart(2, '0');
    out.push({ index, address: `${domain}:${bus}:${device}.${vfRid & 7}` });
  }
  return out;
}

/** "0x8086" → "8086" (the form upstream's vendors/devices selectors use). */
function hexId(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const value = parseSysfsHex(text);
  return value === undefined ? undefined : value.toString(16).padStart(4, '0');
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
