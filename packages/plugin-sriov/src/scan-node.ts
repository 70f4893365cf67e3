import {
  createSysfs,
  isPciAddress,
  parseSysfsHex,
  parseSysfsInt,
  pciePlacementFromPath,
  type Sysfs,
} from '@kdp/topology';
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

interface RawFunction {
  readonly address: string;
  readonly kind: FunctionKind;
  readonly vendor?: string;
  readonly device?: string;
  readonly driver?: string;
  readonly numaNode?: number;
  readonly iommuGroup?: number;
  readonly noIommu: boolean;
  readonly acpiIndex?: string;
  readonly netdevs: readonly string[];
  readonly ownLinkType?: string;
  readonly ownCarrier?: boolean;
  readonly rdmaDevices: readonly string[];
  readonly uioDevices: readonly string[];
  readonly physfn?: string;
  readonly sriov?: { readonly totalVfs: number; readonly numVfs: number };
  readonly virtfns: readonly { readonly index: number; readonly address: string }[];
  readonly pciePath?: readonly string[];
}

/**
 * Reads every network (class 0x02) and accelerator (class 0x12) PCI function: IDs, driver, NUMA node, IOMMU
 * group, netdevs and their link type, RDMA and uio devices, PF/VF relations and PF carrier. Never throws:
 * a function that cannot be read is skipped with a warning. PFs with VFs enabled and the interface holding
 * the IPv4 default route are returned in `skipped`, as upstream never offers them.
 */
export async function scanNode(options: ScanNodeOptions): Promise<NodeScan> {
  const { sysfs } = options;
  const warnings: string[] = [];
  const names = (await sysfs.list(PCI)).filter((name) => isPciAddress(name));
  const [raws, defaultRoute] = await Promise.all([
    Promise.all(names.map((address) => readRaw(sysfs, address, warnings))),
    options.procfs ? readDefaultRouteInterfaces(options.procfs) : Promise.resolve(new Set<string>()),
  ]);
  const byAddress = new Map<string, RawFunction>();
  for (const raw of raws) if (raw) byAddress.set(raw.address, raw);

  // VF index and PF of every VF, from the PFs' virtfnN links (the physfn link alone has no index).
  const vfOf = new Map<string, { pfAddress: string; index: number }>();
  for (const raw of byAddress.values()) {
    for (const vf of raw.virtfns) vfOf.set(vf.address, { pfAddress: raw.address, index: vf.index });
  }

  const functions: NicFunction[] = [];
  const skipped: SkippedFunction[] = [];
  for (const raw of byAddress.values()) {
    let vf = vfOf.get(raw.address);
    if (vf === undefined && raw.physfn !== undefined) {
      warnings.push(`${raw.address}: has a physfn link to ${raw.physfn} but no virtfn link points at it`);
    }
    if (vf !== undefined && raw.physfn !== undefined && raw.physfn !== vf.pfAddress) {
      warnings.push(`${raw.address}: physfn names ${raw.physfn} but ${vf.pfAddress} lists it as a VF`);
      vf = undefined;
    }
    const pf = vf === undefined ? undefined : byAddress.get(vf.pfAddress);
    const pfName = pf !== undefined ? pf.netdevs[0] : vf === undefined ? raw.netdevs[0] : undefined;
    const pfCarrier = vf === undefined ? raw.ownCarrier : pf?.ownCarrier;
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
      ...(raw.sriov !== undefined ? { sriov: raw.sriov } : {}),
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

/** Creates the readers for `scanNode` from the command line's roots. */
export function createScanReaders(sysfsRoot: string, procRoot: string): ScanNodeOptions {
  return { sysfs: createSysfs({ root: sysfsRoot }), procfs: createSysfs({ root: procRoot }) };
}

async function readRaw(sysfs: Sysfs, address: string, warnings: string[]): Promise<RawFunction | undefined> {
  const dir = `${PCI}/${address}`;
  const classText = await sysfs.read(`${dir}/class`);
  if (classText === undefined) return undefined;
  const kind = kindOfClass(parseSysfsHex(classText));
  if (kind === undefined) return undefined;
  const [vendor, device, driver, numaText, iommuName, physfn, totalVfs, numVfs, acpiIndex, netdevs, rdma] =
    await Promise.all([
      sysfs.read(`${dir}/vendor`),
      sysfs.read(`${dir}/device`),
      sysfs.readLinkName(`${dir}/driver`),
      sysfs.read(`${dir}/numa_node`),
      sysfs.readLinkName(`${dir}/iommu_group`),
      sysfs.readLinkName(`${dir}/physfn`),
      sysfs.readInt(`${dir}/sriov_totalvfs`),
      sysfs.readInt(`${dir}/sriov_numvfs`),
      sysfs.read(`${dir}/acpi_index`),
      sysfs.list(`${dir}/net`),
      sysfs.list(`${dir}/infiniband`),
    ]);
  const numa = numaText === undefined ? undefined : parseSysfsInt(numaText);
  if (numaText !== undefined && numa === undefined) {
    warnings.push(`${address}: numa_node is not a number ("${numaText.slice(0, 40)}"); topology unknown`);
  }
  const group = iommuName === undefined ? undefined : parseSysfsInt(iommuName);
  if (iommuName !== undefined && group === undefined) {
    warnings.push(`${address}: iommu_group link names "${iommuName.slice(0, 40)}", not a number`);
  }
  const isPf = totalVfs !== undefined;
  const [linkTypeText, carrierText, noIommuName, uio, virtfns, resolved] = await Promise.all([
    netdevs[0] === undefined ? undefined : sysfs.read(`${dir}/net/${netdevs[0]}/type`),
    netdevs[0] === undefined || physfn !== undefined
      ? undefined
      : sysfs.read(`${dir}/net/${netdevs[0]}/carrier`),
    driver === 'vfio-pci' && group !== undefined ? sysfs.read(`${dir}/iommu_group/name`) : undefined,
    driver === 'igb_uio' || driver === 'uio_pci_generic' ? sysfs.list(`${dir}/uio`) : [],
    isPf ? readVirtfns(sysfs, dir) : [],
    physfn === undefined ? sysfs.resolve(dir) : undefined,
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
    noIommu: noIommuName === 'vfio-noiommu',
    ...optional('acpiIndex', acpiIndex === '' ? undefined : acpiIndex),
    netdevs,
    ...optional(
      'ownLinkType',
      typeNumber === undefined ? undefined : (LINK_TYPES[typeNumber] ?? `${typeNumber}`),
    ),
    // Reading `carrier` of an interface that is administratively down fails (EINVAL): no carrier.
    ...optional(
      'ownCarrier',
      netdevs[0] === undefined || physfn !== undefined ? undefined : carrierText === '1',
    ),
    rdmaDevices: rdma,
    uioDevices: uio.filter((name) => /^uio\d+$/.test(name)),
    ...optional('physfn', physfn !== undefined && isPciAddress(physfn) ? physfn : undefined),
    ...(isPf ? { sriov: { totalVfs, numVfs: numVfs ?? 0 } } : {}),
    virtfns,
    ...optional('pciePath', placement?.bridges),
  };
}

async function readVirtfns(
  sysfs: Sysfs,
  dir: string,
): Promise<{ readonly index: number; readonly address: string }[]> {
  const links = (await sysfs.list(dir))
    .map((name) => ({ name, index: /^virtfn(\d{1,5})$/.exec(name)?.[1] }))
    .filter((e): e is { name: string; index: string } => e.index !== undefined);
  const vfs = await Promise.all(
    links.map(async ({ name, index }) => ({
      index: Number(index),
      address: await sysfs.readLinkName(`${dir}/${name}`),
    })),
  );
  return vfs
    .filter(
      (vf): vf is { index: number; address: string } => vf.address !== undefined && isPciAddress(vf.address),
    )
    .sort((a, b) => a.index - b.index);
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
