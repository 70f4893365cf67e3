import { parseSysfsInt, scanPciFunctions, type Host, type PciFunction, type Sysfs } from '@kdp/topology';
import type { ExcludedDevice } from '@kdp/core/plugin';
import { functionPath, type FunctionKind, type NicFunction, type NodeScan } from './nic-function';
import { readDefaultRouteInterfaces } from './read-default-route-interfaces';
import { readRdmaCharDevices } from './read-rdma-char-devices';

/** Link type names for the `type` values the selectors care about (ARPHRD_*), as netlink names them. */
const LINK_TYPES: Readonly<Record<number, string>> = { 1: 'ether', 32: 'infiniband', 772: 'loopback' };

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

/**
 * Reads every network (class 0x02) and accelerator (class 0x12) PCI function with `scanPciFunctions` of
 * @kdp/topology (IDs, driver, NUMA node, IOMMU group, PF/VF relations, PCIe path), then what a NIC adds:
 * netdevs with the link type and carrier of a PF's first one, RDMA and uio devices, vfio no-IOMMU groups, and
 * the interfaces holding the IPv4 default route. VFs take link type, PF name and carrier from their PF.
 * `knownPaths`: the functions' directories from earlier scans (see `scanPciFunctions`). Never throws; yields
 * to the event loop every 64 functions. PFs with VFs enabled and the default-route interface are returned in `skipped`, as upstream
 * never offers them.
 */
export async function scanNics(
  host: Pick<Host, 'sysfs' | 'procfs'>,
  knownPaths = new Map<string, string>(),
): Promise<NodeScan> {
  const { sysfs } = host;
  const select = (klass: number): boolean => kindOfClass(klass) !== undefined;
  const pci = await scanPciFunctions(sysfs, { select, knownPaths });
  const defaultRoute = await readDefaultRouteInterfaces(host.procfs);
  const heads = new Map<string, NetFacts>();
  const functions: NicFunction[] = [];
  const skipped: ExcludedDevice[] = [];
  // PFs first (sorted by address, a VF may precede its PF): VFs inherit their network facts.
  const ordered = [...pci.functions.filter((fn) => !fn.vf), ...pci.functions.filter((fn) => fn.vf)];
  for (const [i, fn] of ordered.entries()) {
    // The reads are synchronous system calls: let the gRPC server answer between batches.
    if (i % 64 === 63) await new Promise<void>((resolve) => setImmediate(resolve));
    const pf = fn.vf === undefined ? undefined : heads.get(fn.vf.pfAddress);
    const own = await readNetFacts(sysfs, fn, pf === undefined);
    if (fn.vf === undefined) heads.set(fn.address, own);
    const facts = pf ?? own;
    const nic: NicFunction = {
      ...withoutHexPrefix(fn),
      kind: kindOfClass(fn.pciClass) ?? 'netDevice',
      ...(await driverNodes(sysfs, fn)),
      netdevs: own.netdevs,
      ...optional('linkType', own.linkType ?? pf?.linkType),
      rdmaDevices: fn.entries.has('infiniband') ? await sysfs.list(`${fn.sysfsPath}/infiniband`) : [],
      ...(fn.sriov !== undefined ? { sriov: { totalVfs: fn.sriov.totalVfs, numVfs: fn.sriov.numVfs } } : {}),
      ...optional('pfName', facts.netdevs[0]),
      ...optional('pfCarrier', facts.carrier),
    };
    const route = own.netdevs.find((name) => defaultRoute.has(name));
    const numVfs = fn.sriov?.numVfs ?? 0;
    if (numVfs > 0) {
      skipped.push({
        path: functionPath(fn.address),
        reason: `physical function with ${numVfs} VFs enabled; its VFs are offered instead`,
      });
    } else if (route !== undefined) {
      const reason = `interface ${route} holds the IPv4 default route`;
      skipped.push({ path: functionPath(fn.address), reason });
    } else functions.push(nic);
  }
  functions.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const rdmaNames = new Set(functions.flatMap((fn) => fn.rdmaDevices));
  const rdmaCharDevices =
    rdmaNames.size > 0 ? await readRdmaCharDevices(sysfs, rdmaNames) : new Map<string, string[]>();
  return { functions, skipped, rdmaCharDevices, warnings: pci.warnings };
}

/** The PCI facts in the form upstream's selectors compare: IDs as "8086", no "0x". */
function withoutHexPrefix(
  fn: PciFunction,
): Pick<
  NicFunction,
  'address' | 'vendor' | 'device' | 'driver' | 'numaNode' | 'iommuGroup' | 'acpiIndex' | 'vf' | 'pciePath'
> {
  return {
    address: fn.address,
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

/** The netdevs of a function and, for a PF or plain function (`full`), the first one's link type and carrier. */
async function readNetFacts(sysfs: Sysfs, fn: PciFunction, full: boolean): Promise<NetFacts> {
  const netdevs = fn.entries.has('net') ? await sysfs.list(`${fn.sysfsPath}/net`) : [];
  const first = netdevs[0];
  if (!full || first === undefined) return { netdevs };
  const type = parseSysfsInt((await sysfs.read(`${fn.sysfsPath}/net/${first}/type`)) ?? '');
  // Reading `carrier` of an interface that is administratively down fails (EINVAL): no carrier.
  const carrier = (await sysfs.read(`${fn.sysfsPath}/net/${first}/carrier`)) === '1';
  return {
    netdevs,
    ...optional('linkType', type === undefined ? undefined : (LINK_TYPES[type] ?? `${type}`)),
    carrier,
  };
}

/** vfio no-IOMMU mode (a `name` of vfio-noiommu on the group) and uio nodes, read only for those drivers. */
async function driverNodes(
  sysfs: Sysfs,
  fn: PciFunction,
): Promise<{ noIommu: boolean; uioDevices: readonly string[] }> {
  if (fn.driver === 'vfio-pci' && fn.iommuGroup !== undefined) {
    // The group resolved once: `name` (present in no-IOMMU mode only) is then one open, absent or not.
    const group = await sysfs.resolve(`${fn.sysfsPath}/iommu_group`);
    const name = group === undefined ? undefined : await sysfs.read(`${group}/name`);
    return { noIommu: name === 'vfio-noiommu', uioDevices: [] };
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
