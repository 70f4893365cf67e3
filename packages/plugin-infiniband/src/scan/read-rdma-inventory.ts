import { posix } from 'node:path';
import type { ExcludedDevice } from '@kdp/core/plugin';
import {
  isPciAddress,
  readPciDevice,
  type Host,
  type NumaTopology,
  type PciDevice,
  type Sysfs,
} from '@kdp/topology';
import { isPortUp, normalizeLinkLayer, parsePortAttribute, type PortAttribute } from '../health/port-state';

/** One port of an RDMA device, from /sys/class/infiniband/<dev>/ports/<n>. */
export interface RdmaPort {
  readonly number: number;
  readonly state?: PortAttribute;
  readonly physState?: PortAttribute;
  /** `InfiniBand` or `Ethernet` (RoCE); undefined when unreadable. */
  readonly linkLayer?: string;
  /** e.g. `200 Gb/sec (4X HDR)`. */
  readonly rate?: string;
  /** state ACTIVE and phys_state LinkUp. */
  readonly up: boolean;
}

/** Kind of an RDMA character device. */
export type RdmaCharKind = 'uverbs' | 'umad' | 'issm' | 'ucm' | 'hfi1';

/** A character device that belongs to one RDMA device. */
export interface RdmaCharDevice {
  /** `uverbs0`, `umad1`, `issm0`, `ucm0`, `hfi1_0`. */
  readonly name: string;
  readonly kind: RdmaCharKind;
  /** The port it serves (umad, issm). */
  readonly port?: number;
  /** Host path handed to the kubelet, e.g. `/dev/infiniband/uverbs0` (never prefixed with --dev-root). */
  readonly hostPath: string;
  /** Whether the node is a device node under --dev-root now. */
  readonly present: boolean;
}

/** One RDMA device (HCA, RoCE function, Omni-Path HFI or RDMA-capable VF). */
export interface RdmaHca {
  /** ibdev name, e.g. `mlx5_0`. */
  readonly name: string;
  /** `/sys/class/infiniband/<name>`, for messages. */
  readonly path: string;
  readonly pciAddress?: string;
  readonly pci?: PciDevice;
  readonly nodeGuid?: string;
  readonly fwVer?: string;
  readonly nodeType?: string;
  readonly ports: readonly RdmaPort[];
  readonly charDevices: readonly RdmaCharDevice[];
  /** Network interfaces of the PCI function (`ib0`, `ens6f0np0`). */
  readonly netdevs: readonly string[];
  readonly numaNodes: readonly number[];
  readonly pciePath: readonly string[];
}

/** Everything one scan found. */
export interface RdmaInventory {
  readonly hcas: readonly RdmaHca[];
  /** `/dev/infiniband/rdma_cm`, shared by every device. */
  readonly rdmaCm: { readonly hostPath: string; readonly present: boolean };
  /** RDMA devices seen but unusable, and why. */
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

/** Inputs of {@link readRdmaInventory}. */
export interface RdmaInventoryOptions {
  /** sysfs and /dev, confined to their roots. */
  readonly host: Pick<Host, 'sysfs' | 'devfs'>;
  /** NUMA topology for the local_cpulist fallback. */
  readonly numa?: NumaTopology;
}

const CHAR_NAME = /^(uverbs|umad|issm|ucm)(\d{1,5})$/;
const IBDEV_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The ibdev name of an Omni-Path HFI, whose PSM2 node is `/dev/<name>`. */
export const HFI1_NAME = /^hfi1_\d{1,3}$/;

interface CharEntry {
  readonly name: string;
  readonly kind: Exclude<RdmaCharKind, 'hfi1'>;
  readonly ibdev: string;
  readonly port?: number;
}

const byNumber = (a: string, b: string): number =>
  Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || (a < b ? -1 : a > b ? 1 : 0);

const KIND_ORDER: readonly string[] = ['uverbs', 'umad', 'issm', 'ucm'];
const byKindThenNumber = (a: CharEntry, b: CharEntry): number =>
  (a.port ?? 0) - (b.port ?? 0) ||
  KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
  byNumber(a.name, b.name);

/** One entry of a character-device class, or the warning that stands for it. */
async function readCharEntry(
  sysfs: Sysfs,
  className: string,
  name: string,
): Promise<{ readonly entry?: CharEntry; readonly warnings: string[] }> {
  const match = CHAR_NAME.exec(name);
  if (match === null) return { warnings: [] }; // abi_version and other attributes live here too
  const dir = `class/${className}/${name}`;
  const kind = match[1] as CharEntry['kind'];
  const [ibdev, port] = await Promise.all([
    sysfs.read(`${dir}/ibdev`),
    kind === 'umad' || kind === 'issm' ? sysfs.readInt(`${dir}/port`) : undefined,
  ]);
  if (ibdev === undefined || !IBDEV_NAME.test(ibdev)) {
    const problem = ibdev === undefined ? 'unreadable' : 'not a device name';
    return { warnings: [`/sys/${dir}/ibdev: ${problem}; ${name} ignored`] };
  }
  const warnings =
    (kind === 'umad' || kind === 'issm') && port === undefined
      ? [`/sys/${dir}/port: unreadable or not a number`]
      : [];
  return { entry: { name, kind, ibdev, ...(port !== undefined ? { port } : {}) }, warnings };
}

/**
 * Reads the character-device classes (infiniband_verbs, infiniband_mad, infiniband_cm) keyed by ibdev. Entries
 * are read concurrently (a scan's latency is its chain of awaits) and collected in order.
 */
async function readCharEntries(sysfs: Sysfs, warnings: string[]): Promise<Map<string, CharEntry[]>> {
  const byIbdev = new Map<string, CharEntry[]>();
  const classes = ['infiniband_verbs', 'infiniband_mad', 'infiniband_cm'];
  const read = await Promise.all(
    classes.map(async (className) => {
      const names = (await sysfs.list(`class/${className}`)).sort(byNumber);
      return Promise.all(names.map((name) => readCharEntry(sysfs, className, name)));
    }),
  );
  for (const { entry, warnings: entryWarnings } of read.flat()) {
    warnings.push(...entryWarnings);
    if (entry === undefined) continue;
    byIbdev.set(entry.ibdev, [...(byIbdev.get(entry.ibdev) ?? []), entry]);
  }
  return byIbdev;
}

async function readPort(sysfs: Sysfs, dir: string, number: number, warnings: string[]): Promise<RdmaPort> {
  const [stateText, physText, linkText, rate] = await Promise.all([
    sysfs.read(`${dir}/state`),
    sysfs.read(`${dir}/phys_state`),
    sysfs.read(`${dir}/link_layer`),
    sysfs.read(`${dir}/rate`),
  ]);
  const state = parsePortAttribute(stateText);
  const physState = parsePortAttribute(physText);
  if (state === undefined) warnings.push(`/sys/${dir}/state: ${describe(stateText)}; port counted as down`);
  if (physState === undefined)
    warnings.push(`/sys/${dir}/phys_state: ${describe(physText)}; port counted as down`);
  const linkLayer = normalizeLinkLayer(linkText);
  return {
    number,
    ...(state !== undefined ? { state } : {}),
    ...(physState !== undefined ? { physState } : {}),
    ...(linkLayer !== undefined ? { linkLayer } : {}),
    ...(rate !== undefined && rate !== '' ? { rate: rate.slice(0, 64) } : {}),
    up: isPortUp(state, physState),
  };
}

const describe = (text: string | undefined): string =>
  text === undefined ? 'unreadable' : `unexpected content ${JSON.stringify(text.slice(0, 40))}`;

/** What reading one /sys/class/infiniband entry gave: the device, or why it is excluded, and its warnings. */
interface HcaRead {
  readonly hca?: RdmaHca;
  readonly excluded?: ExcludedDevice;
  readonly warnings: readonly string[];
}

/** Reads one RDMA device: its PCI function, attributes, ports (concurrently) and character devices. */
async function readHca(
  options: RdmaInventoryOptions,
  name: string,
  entries: readonly CharEntry[],
): Promise<HcaRead> {
  const { sysfs, devfs } = options.host;
  const path = `/sys/class/infiniband/${name}`;
  if (!IBDEV_NAME.test(name))
    return { excluded: { path, reason: 'not a valid RDMA device name' }, warnings: [] };
  const dir = `class/infiniband/${name}`;
  const located = await sysfs.locate(dir);
  if (!located.ok) return { excluded: { path, reason: located.message }, warnings: [] };
  const warnings: string[] = [];
  const parent = await sysfs.resolve(`${dir}/device`);
  const parentName = parent === undefined ? undefined : posix.basename(parent);
  const isPci = parentName !== undefined && isPciAddress(parentName);
  const [pciRead, nodeGuid, fwVer, nodeType, portNames, netdevs] = await Promise.all([
    isPci ? readPciDevice(sysfs, parentName, options.numa) : undefined,
    sysfs.read(`${dir}/node_guid`),
    sysfs.read(`${dir}/fw_ver`),
    sysfs.read(`${dir}/node_type`),
    sysfs.list(`${dir}/ports`),
    sysfs.list(`${dir}/device/net`),
  ]);
  if (pciRead !== undefined) warnings.push(...pciRead.warnings);
  else warnings.push(`${path}: not backed by a PCI function; no NUMA or PCI selectors apply`);
  const pci: PciDevice | undefined = pciRead?.device;
  const numbers = portNames.filter((p) => /^\d{1,3}$/.test(p)).sort(byNumber);
  const portReads = await Promise.all(
    numbers.map(async (portName) => {
      const portWarnings: string[] = [];
      const port = await readPort(sysfs, `${dir}/ports/${portName}`, Number(portName), portWarnings);
      return { port, portWarnings };
    }),
  );
  const ports = portReads.map(({ port }) => port);
  warnings.push(...portReads.flatMap(({ portWarnings }) => portWarnings));
  if (ports.length === 0) warnings.push(`${path}: no ports; counted as down`);
  if (!entries.some((entry) => entry.kind === 'uverbs')) {
    const reason = 'no uverbs character device in /sys/class/infiniband_verbs (is ib_uverbs loaded?)';
    return { excluded: { path, reason }, warnings };
  }
  const sorted = [...entries].sort(byKindThenNumber);
  const [present, hfi1Present] = await Promise.all([
    Promise.all(sorted.map((entry) => devfs.hasNode(`/dev/infiniband/${entry.name}`))),
    // Omni-Path PSM2 talks to the HFI through /dev/hfi1_<unit>, beside the verbs devices.
    HFI1_NAME.test(name) ? devfs.hasNode(`/dev/${name}`) : false,
  ]);
  const charDevices: RdmaCharDevice[] = sorted.map((entry, index) => ({
    name: entry.name,
    kind: entry.kind,
    ...(entry.port !== undefined ? { port: entry.port } : {}),
    hostPath: `/dev/infiniband/${entry.name}`,
    present: present[index] === true,
  }));
  if (hfi1Present) charDevices.push({ name, kind: 'hfi1', hostPath: `/dev/${name}`, present: true });
  for (const device of charDevices) {
    if (!device.present && device.kind !== 'uverbs')
      warnings.push(
        `${path}: ${device.name} is in sysfs but ${device.hostPath} is missing; not handed to containers`,
      );
  }
  const hca: RdmaHca = {
    name,
    path,
    ...(pci !== undefined ? { pciAddress: pci.address, pci } : {}),
    ...(nodeGuid ? { nodeGuid } : {}),
    ...(fwVer ? { fwVer } : {}),
    ...(nodeType ? { nodeType } : {}),
    ports,
    charDevices,
    netdevs: netdevs.filter((n) => /^[A-Za-z0-9_.:@-]{1,32}$/.test(n)),
    numaNodes: pci?.numaNode === undefined ? [] : [pci.numaNode],
    pciePath: pci?.pciePath ?? [],
  };
  return { hca, warnings };
}

/**
 * Scans sysfs for RDMA devices: /sys/class/infiniband/<dev> (PCI function, node_guid, fw_ver, ports), their
 * character devices from infiniband_verbs / infiniband_mad / infiniband_cm, and whether each node exists
 * under the dev root. Devices are read concurrently and reported in name order. Never throws: bad entries are
 * excluded or degraded with a warning.
 */
export async function readRdmaInventory(options: RdmaInventoryOptions): Promise<RdmaInventory> {
  const { sysfs, devfs } = options.host;
  const warnings: string[] = [];
  const excluded: ExcludedDevice[] = [];
  const [chars, names, rdmaCmPresent] = await Promise.all([
    readCharEntries(sysfs, warnings),
    sysfs.list('class/infiniband'),
    devfs.hasNode('/dev/infiniband/rdma_cm'),
  ]);
  const hcas: RdmaHca[] = [];
  const read = await Promise.all(names.sort().map((name) => readHca(options, name, chars.get(name) ?? [])));
  for (const result of read) {
    warnings.push(...result.warnings);
    if (result.excluded !== undefined) excluded.push(result.excluded);
    if (result.hca !== undefined) hcas.push(result.hca);
  }
  if (hcas.length > 0 && !rdmaCmPresent) {
    warnings.push('/dev/infiniband/rdma_cm is missing (is rdma_ucm loaded?); containers get no rdma_cm');
  }
  return {
    hcas,
    rdmaCm: { hostPath: '/dev/infiniband/rdma_cm', present: rdmaCmPresent },
    excluded,
    warnings,
  };
}
