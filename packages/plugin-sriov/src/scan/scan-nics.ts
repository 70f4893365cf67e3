import { parseSysfsInt, scanPciFunctions, type Host, type PciFunction, type Sysfs } from '@kdp/topology';
import type { ExcludedDevice } from '@kdp/core/plugin';
import { functionPath, type FunctionKind, type NicFunction, type NodeScan } from './nic-function';
import { readDefaultRouteInterfaces } from './read-default-route-interfaces';
import { readRdmaCharDevices } from './read-rdma-char-devices';
import { readUeventSupport } from './read-uevent-support';

/** Link type names for the `type` values the selectors care about (ARPHRD_*), as netlink names them. */
const LINK_TYPES: Readonly<Record<number, string>> = { 1: 'ether', 32: 'infiniband', 772: 'loopback' };

/** The class directories whose entries a driver's probe adds a moment after the driver link appears. */
const CLASS_LISTS = ['class/net', 'class/infiniband', 'class/uio'];

/** The pool kind a PCI class belongs to, from its top byte; undefined for everything else. */
export function kindOfClass(klass: number | undefined): FunctionKind | undefined {
  if (klass === undefined) return undefined;
  const base = klass >> 16;
  return base === 0x02 ? 'netDevice' : base === 0x12 ? 'accelerator' : undefined;
}

/** What a function's network side says: its netdevs, link type and carrier (the first netdev's). */
interface NetFacts {
  readonly netdevs: readonly string[];
  readonly linkType?: string;
  readonly carrier?: boolean;
}

/** What one scan leaves for the next, so that it reads less: kept by a long-lived caller (the plugin's state). */
export interface NicScanCache {
  /** The functions' real directories by address (see `scanPciFunctions`). */
  readonly knownPaths: Map<string, string>;
  /** Whether an IOMMU group is a vfio no-IOMMU group, by group number (fixed while the group exists). */
  readonly noIommuGroups: Map<number, boolean>;
  /**
   * The functions of the last full read, their warnings, and the function-level state they were read at;
   * undefined before the first scan (set it to undefined to have the next scan read every function).
   */
  last:
    | {
        readonly state: string;
        readonly functions: readonly NicFunction[];
        readonly warnings: readonly string[];
      }
    | undefined;
}

/** An empty {@link NicScanCache}. */
export function createNicScanCache(): NicScanCache {
  return { knownPaths: new Map(), noIommuGroups: new Map(), last: undefined };
}

/**
 * Reads every network (class 0x02) and accelerator (class 0x12) PCI function with `scanPciFunctions` of
 * @kdp/topology (IDs, driver, NUMA node, IOMMU group, PF/VF relations, PCIe path), then what a NIC adds:
 * netdevs with the link type and carrier of a PF's first one, RDMA and uio devices, vfio no-IOMMU groups, and
 * the interfaces holding the IPv4 default route. VFs take link type, PF name and carrier from their PF.
 * PFs with VFs enabled and the default-route interface are returned in `skipped`, as upstream never offers
 * them. Never throws; yields to the event loop every 64 functions.
 *
 * `cache`: what earlier scans learned; pass the same one to every scan. While the function-level state (the
 * function list, every driver's device list, the driver links of unbound functions, the netdev, RDMA and uio
 * class lists) is what it was at the last full read, that read's functions are reused and only the PFs' and
 * plain functions' network facts (netdevs, link type, carrier) are read again: a PF losing its carrier costs a
 * few reads instead of a read of every VF.
 */
export async function scanNics(
  host: Pick<Host, 'sysfs' | 'procfs'>,
  cache: NicScanCache = createNicScanCache(),
): Promise<NodeScan> {
  const { sysfs } = host;
  const state = await functionState(sysfs, cache.last?.functions ?? []);
  const last = cache.last?.state === state ? cache.last : undefined;
  const read =
    last === undefined
      ? await readFunctions(sysfs, cache)
      : { functions: await refreshHeads(sysfs, last.functions), warnings: last.warnings };
  cache.last = { state, ...read };

  const defaultRoute = await readDefaultRouteInterfaces(host.procfs);
  const functions: NicFunction[] = [];
  const skipped: ExcludedDevice[] = [];
  const skippedFunctions: NicFunction[] = [];
  for (const nic of read.functions) {
    const route = nic.netdevs.find((name) => defaultRoute.has(name));
    const numVfs = nic.sriov?.numVfs ?? 0;
    const reason =
      numVfs > 0
        ? `physical function with ${numVfs} VFs enabled; its VFs are offered instead`
        : route !== undefined
          ? `interface ${route} holds the IPv4 default route`
          : undefined;
    if (reason === undefined) functions.push(nic);
    else {
      skipped.push({ path: functionPath(nic.address), reason });
      skippedFunctions.push(nic);
    }
  }
  functions.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const rdmaNames = new Set(functions.flatMap((fn) => fn.rdmaDevices));
  const rdmaCharDevices =
    rdmaNames.size > 0 ? await readRdmaCharDevices(sysfs, rdmaNames) : new Map<string, string[]>();
  const uevents = await readUeventSupport(host);
  return { functions, skipped, skippedFunctions, rdmaCharDevices, uevents, warnings: read.warnings };
}

/**
 * What decides the functions' own facts, as cheaply as the change probe reads it: the function list, the
 * device list of every driver the last read saw bound, the driver link of every function it saw unbound, and
 * the class lists a driver's probe adds to after the driver link (a read in between is not reused).
 */
async function functionState(sysfs: Sysfs, last: readonly NicFunction[]): Promise<string> {
  const drivers = [...new Set(last.flatMap((fn) => (fn.driver === undefined ? [] : [fn.driver])))].sort();
  const parts: string[] = [];
  for (const dir of ['bus/pci/devices', ...CLASS_LISTS, ...drivers.map((d) => `bus/pci/drivers/${d}`)]) {
    parts.push(`${dir}: ${(await sysfs.list(dir)).join(' ')}`);
  }
  for (const fn of last) {
    if (fn.driver === undefined)
      parts.push(`${fn.address}: ${String(await sysfs.readLink(`${fn.sysfsPath}/driver`))}`);
  }
  return parts.join('\n');
}

/** Every candidate function read in full: its PCI facts (`scanPciFunctions`), then its own NIC facts. */
async function readFunctions(
  sysfs: Sysfs,
  cache: NicScanCache,
): Promise<{ functions: NicFunction[]; warnings: readonly string[] }> {
  const select = (klass: number): boolean => kindOfClass(klass) !== undefined;
  const pci = await scanPciFunctions(sysfs, { select, knownPaths: cache.knownPaths });
  const heads = new Map<string, NetFacts>();
  const functions: NicFunction[] = [];
  const groups = new Set<number>();
  // PFs first (sorted by address, a VF may precede its PF): VFs inherit their network facts.
  const ordered = [...pci.functions.filter((fn) => !fn.vf), ...pci.functions.filter((fn) => fn.vf)];
  for (const [i, fn] of ordered.entries()) {
    // The reads are synchronous system calls: let the gRPC server answer between batches.
    if (i % 64 === 63) await new Promise<void>((resolve) => setImmediate(resolve));
    const pf = fn.vf === undefined ? undefined : heads.get(fn.vf.pfAddress);
    const own = await readNetFacts(sysfs, fn.sysfsPath, fn.entries.has('net'), pf === undefined);
    if (fn.vf === undefined) heads.set(fn.address, own);
    const rdmaDevices = fn.entries.has('infiniband') ? await sysfs.list(`${fn.sysfsPath}/infiniband`) : [];
    const ib = (pf ?? own).linkType === 'infiniband' && rdmaDevices[0] !== undefined;
    const nic: NicFunction = {
      ...withoutHexPrefix(fn),
      kind: kindOfClass(fn.pciClass) ?? 'netDevice',
      ...(await driverNodes(sysfs, fn, cache.noIommuGroups, groups)),
      netdevs: own.netdevs,
      rdmaDevices,
      ...(ib
        ? optional('pKey', await readDefaultPKey(sysfs, `${fn.sysfsPath}/infiniband/${rdmaDevices[0]}`))
        : {}),
      ...(fn.sriov !== undefined ? { sriov: { totalVfs: fn.sriov.totalVfs, numVfs: fn.sriov.numVfs } } : {}),
    };
    functions.push(withPfFacts(nic, pf ?? own));
  }
  // Groups no function is in any more are forgotten (their numbers may come back for other groups).
  for (const group of cache.noIommuGroups.keys()) if (!groups.has(group)) cache.noIommuGroups.delete(group);
  return { functions, warnings: pci.warnings };
}

/**
 * The functions of the last full read with the network facts of every PF and plain function read again and
 * passed on to its VFs (a VF whose PF's facts did not change is the same object).
 */
async function refreshHeads(sysfs: Sysfs, last: readonly NicFunction[]): Promise<NicFunction[]> {
  const heads = new Map<string, NetFacts>();
  const functions: NicFunction[] = [];
  for (const fn of last) {
    if (fn.vf !== undefined) continue;
    const own = await readNetFacts(sysfs, fn.sysfsPath, true, true);
    heads.set(fn.address, own);
    functions.push(withPfFacts({ ...fn, netdevs: own.netdevs }, own));
  }
  for (const fn of last) {
    const pf = fn.vf === undefined ? undefined : heads.get(fn.vf.pfAddress);
    if (pf !== undefined) functions.push(withPfFacts(fn, pf));
  }
  return functions;
}

/** A function with the link type, PF name and carrier of `facts` (its own for a PF, its PF's for a VF). */
function withPfFacts(fn: NicFunction, facts: NetFacts): NicFunction {
  const pfName = facts.netdevs[0];
  if (fn.linkType === facts.linkType && fn.pfName === pfName && fn.pfCarrier === facts.carrier) return fn;
  const { linkType: _linkType, pfName: _pfName, pfCarrier: _pfCarrier, ...rest } = fn;
  return {
    ...rest,
    ...optional('linkType', facts.linkType),
    ...optional('pfName', pfName),
    ...optional('pfCarrier', facts.carrier),
  };
}

/** The PCI facts in the form upstream's selectors compare: IDs as "8086", no "0x". */
function withoutHexPrefix(
  fn: PciFunction,
): Pick<
  NicFunction,
  | 'address'
  | 'sysfsPath'
  | 'vendor'
  | 'device'
  | 'driver'
  | 'numaNode'
  | 'iommuGroup'
  | 'acpiIndex'
  | 'vf'
  | 'pciePath'
> {
  return {
    address: fn.address,
    sysfsPath: fn.sysfsPath,
    ...optional('vendor', fn.vendor?.slice(2)),
    ...optional('device', fn.device?.slice(2)),
    ...optional('driver', fn.driver),
    ...optional('numaNode', fn.numaNode),
    ...optional('iommuGroup', fn.iommuGroup),
    ...optional('acpiIndex', fn.acpiIndex),
    ...(fn.vf !== undefined ? { vf: fn.vf } : {}),
    pciePath: fn.pciePath,
  };
}

/**
 * The netdevs under a function's directory (`hasNet`: its `net/` exists) and, for a PF or plain function
 * (`full`), the first one's link type and carrier.
 */
async function readNetFacts(sysfs: Sysfs, path: string, hasNet: boolean, full: boolean): Promise<NetFacts> {
  const netdevs = hasNet ? await sysfs.list(`${path}/net`) : [];
  const first = netdevs[0];
  if (!full || first === undefined) return { netdevs };
  const type = parseSysfsInt((await sysfs.read(`${path}/net/${first}/type`)) ?? '');
  // Reading `carrier` of an interface that is administratively down fails (EINVAL): no carrier.
  const carrier = (await sysfs.read(`${path}/net/${first}/carrier`)) === '1';
  return {
    netdevs,
    ...optional('linkType', type === undefined ? undefined : (LINK_TYPES[type] ?? `${type}`)),
    carrier,
  };
}

/**
 * The default partition key of an RDMA device (port 1, index 0: `0x7fff`), as upstream reads it for `pKeys`;
 * undefined when absent or not a 16-bit hex number.
 */
async function readDefaultPKey(sysfs: Sysfs, rdmaDir: string): Promise<string | undefined> {
  const text = (await sysfs.read(`${rdmaDir}/ports/1/pkeys/0`))?.trim().toLowerCase();
  return text !== undefined && /^0x[0-9a-f]{1,4}$/.test(text) ? text : undefined;
}

/**
 * vfio no-IOMMU mode (a `name` of vfio-noiommu on the group, read once per group: `known`, and noted in `seen`)
 * and uio nodes, read only for those drivers.
 */
async function driverNodes(
  sysfs: Sysfs,
  fn: PciFunction,
  known: Map<number, boolean>,
  seen: Set<number>,
): Promise<{ noIommu: boolean; uioDevices: readonly string[] }> {
  const groupNumber = fn.iommuGroup;
  if (fn.driver === 'vfio-pci' && groupNumber !== undefined) {
    seen.add(groupNumber);
    let noIommu = known.get(groupNumber);
    if (noIommu === undefined) {
      // `name` is present in no-IOMMU mode only.
      const group = await sysfs.resolve(`${fn.sysfsPath}/iommu_group`);
      noIommu = group !== undefined && (await sysfs.read(`${group}/name`)) === 'vfio-noiommu';
      known.set(groupNumber, noIommu);
    }
    return { noIommu, uioDevices: [] };
  }
  if (fn.driver === 'igb_uio' || fn.driver === 'uio_pci_generic') {
    const uio = await sysfs.list(`${fn.sysfsPath}/uio`);
    return { noIommu: false, uioDevices: uio.filter((name) => /^uio\d+$/.test(name)) };
  }
  return { noIommu: false, uioDevices: [] };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
