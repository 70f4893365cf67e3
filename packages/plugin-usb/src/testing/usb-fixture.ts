import { rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { usbBusNodePath } from '../scan/usb-device';

/** One interface of a fixture USB device and the nodes its driver created. */
export interface UsbInterfaceSpec {
  /** `bInterfaceClass`, two hex digits (`ff`, `02`, `03`, `0e`). */
  readonly class: string;
  readonly driver?: string;
  /** `ttyUSB0` (usb-serial layout) or `ttyACM0` (cdc-acm layout, under `tty/`). */
  readonly tty?: string;
  /** `hidraw0`, under a HID device directory. */
  readonly hidraw?: string;
  /** Input event nodes (`event3`), under the HID device when `hidraw` is given, else under `input/`. */
  readonly events?: readonly string[];
  /** `video0`, under `video4linux/`. */
  readonly video?: string;
}

/** A fixture USB device. */
export interface UsbDeviceSpec {
  /** `<bus>-<port>[.<port>…]`; the parent (root hub or hub) must exist. */
  readonly portPath: string;
  readonly vendor: string;
  readonly product: string;
  readonly devnum: number;
  readonly serial?: string;
  readonly manufacturer?: string;
  readonly productName?: string;
  readonly bcdDevice?: string;
  /** Default `00`; `09` for a hub. */
  readonly deviceClass?: string;
  readonly speed?: string;
  readonly interfaces?: readonly UsbInterfaceSpec[];
  /** Create the `/dev` nodes under the fixture's dev root (default true). */
  readonly devNodes?: boolean;
}

/** Where {@link UsbFixture.addRootHub} puts a root hub. */
export interface RootHubOptions {
  /** The root-relative directory of a host controller already added with `sys.addPciDevice`. */
  readonly controller?: string;
  /** Otherwise, the address of an xHCI PCI function, added on first use (default `0000:00:14.0`). */
  readonly address?: string;
  /** Its `numa_node` when this call adds it (default 0; -1 is "unknown", as on single-node machines). */
  readonly numaNode?: number;
}

/**
 * A sysfs fixture with USB controllers and devices, laid out as the kernel does (real dirs and symlinks): root
 * hubs below PCI host controllers with a `numa_node`, devices below them, `class/{tty,hidraw,video4linux,input}`
 * links to their nodes, and the nodes under the dev root.
 */
export interface UsbFixture {
  readonly sys: SysfsFixture;
  /** Adds root hub `usb<bus>` below a host controller (see {@link RootHubOptions}). */
  addRootHub(bus: number, options?: RootHubOptions): void;
  /** Adds a device below its parent; returns its real directory relative to the sysfs root. */
  addDevice(spec: UsbDeviceSpec): string;
  /**
   * Removes a device, its children and their links, then their /dev nodes (an unplug, in the kernel's order:
   * sysfs first, udev removes the nodes after).
   */
  removeDevice(portPath: string): void;
  /**
   * Adds nodes to interface `index` of a plugged device, as a driver bound late does (`modprobe ftdi_sio`):
   * the class devices below the interface and their links, then the /dev nodes (unless `devNodes: false`).
   */
  bindNodes(portPath: string, index: number, nodes: Omit<UsbInterfaceSpec, 'class' | 'driver'>): void;
  /** Unplugs and plugs a device again with a new device number. */
  replug(portPath: string, devnum: number): void;
  remove(): void;
}

const busOf = (portPath: string): number => Number(portPath.split('-')[0]);
/** `uevent` writes IDs without leading zeros (`PRODUCT=403/6001/600`). */
const trimHex = (hex: string): string => hex.replace(/^0+(?=.)/, '').toLowerCase();

/** What a fixture remembers of the devices it added, for unplugs and late driver binds. */
interface FixtureState {
  readonly sys: SysfsFixture;
  readonly dirs: Map<string, string>;
  readonly specs: Map<string, UsbDeviceSpec>;
  readonly nodesOf: Map<string, string[]>;
  /** Class links (`class/tty/ttyUSB0`) per device, removed with it. */
  readonly classLinksOf: Map<string, string[]>;
  readonly controllers: Map<string, string>;
  /** The next input device number (`input7`, numbered machine-wide). */
  inputs: number;
}

/** Writes each defined attribute as a sysfs file `<dir>/<name>` (with the kernel's trailing newline). */
function writeAttributes(sys: SysfsFixture, dir: string, values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) sys.write(`${dir}/${name}`, `${value}\n`);
  }
}

/** A `/dev` node as the fixture's placeholder (`c MAJOR:MINOR`), numbered as the kernel numbers that kind. */
function addDevFile(sys: SysfsFixture, path: string): void {
  const n = Number(/(\d+)$/.exec(path)?.[1] ?? 0);
  const bus = /^\/dev\/bus\/usb\/(\d{3})\/(\d{3})$/.exec(path);
  if (bus !== null) sys.addDevNode(path, 189, (Number(bus[1]) - 1) * 128 + Number(bus[2]) - 1);
  else if (path.startsWith('/dev/ttyUSB')) sys.addDevNode(path, 188, n);
  else if (path.startsWith('/dev/ttyACM')) sys.addDevNode(path, 166, n);
  else if (path.startsWith('/dev/video')) sys.addDevNode(path, 81, n);
  else if (path.startsWith('/dev/hidraw')) sys.addDevNode(path, 240, n);
  else sys.addDevNode(path, 13, 64 + n);
}

/** The directory of an xHCI controller at `address`, added with `numaNode` the first time. */
function controllerDir(state: FixtureState, address: string, numaNode: number): string {
  let dir = state.controllers.get(address);
  if (dir === undefined) {
    dir = state.sys.addPciDevice({
      address,
      vendor: '0x8086',
      device: '0xa36d',
      class: '0x0c0330',
      driver: 'xhci_hcd',
      numaNode,
    });
    state.controllers.set(address, dir);
  }
  return dir;
}

/** A class device directory with its `dev` and its `class/<cls>/<name>` link, remembered for the unplug. */
function addClassDevice(state: FixtureState, portPath: string, cls: string, dir: string, dev: string): void {
  if (dev !== '') writeAttributes(state.sys, dir, { dev });
  else state.sys.mkdir(dir);
  const link = `class/${cls}/${dir.slice(dir.lastIndexOf('/') + 1)}`;
  state.sys.linkTo(link, dir);
  state.classLinksOf.set(portPath, [...(state.classLinksOf.get(portPath) ?? []), link]);
}

/** Creates the sysfs side of an interface's nodes as its driver would; returns their /dev paths. */
function addInterfaceNodes(
  state: FixtureState,
  spec: UsbDeviceSpec,
  dir: string,
  index: number,
  iface: UsbInterfaceSpec,
): string[] {
  const classDevice = (cls: string, path: string, dev: string): void =>
    addClassDevice(state, spec.portPath, cls, path, dev);
  const nodes: string[] = [];
  const idir = `${dir}/${spec.portPath}:1.${index}`;
  if (iface.tty?.startsWith('ttyUSB')) {
    classDevice('tty', `${idir}/${iface.tty}/tty/${iface.tty}`, '188:0');
    nodes.push(`/dev/${iface.tty}`);
  } else if (iface.tty !== undefined) {
    classDevice('tty', `${idir}/tty/${iface.tty}`, '166:0');
    nodes.push(`/dev/${iface.tty}`);
  }
  if (iface.video !== undefined) {
    classDevice('video4linux', `${idir}/video4linux/${iface.video}`, '81:0');
    nodes.push(`/dev/${iface.video}`);
  }
  const hid = `${idir}/0003:${spec.vendor.toUpperCase()}:${spec.product.toUpperCase()}.${String(index + 1).padStart(4, '0')}`;
  if (iface.hidraw !== undefined) {
    classDevice('hidraw', `${hid}/hidraw/${iface.hidraw}`, '240:0');
    nodes.push(`/dev/${iface.hidraw}`);
  }
  for (const event of iface.events ?? []) {
    // The input device (`input7`, numbered machine-wide) holds the event node, both in class/input.
    const input = `${iface.hidraw !== undefined ? hid : idir}/input/input${state.inputs++}`;
    classDevice('input', input, '');
    classDevice('input', `${input}/${event}`, '13:64');
    nodes.push(`/dev/input/${event}`);
  }
  return nodes;
}

/** The sysfs attributes of a USB device directory, as the kernel writes them. */
function deviceAttributes(spec: UsbDeviceSpec, bus: number): Record<string, string | undefined> {
  const minor = (bus - 1) * 128 + spec.devnum - 1;
  return {
    idVendor: spec.vendor,
    idProduct: spec.product,
    bcdDevice: spec.bcdDevice ?? '0100',
    bDeviceClass: spec.deviceClass ?? '00',
    busnum: String(bus),
    devnum: String(spec.devnum),
    devpath: spec.portPath.slice(spec.portPath.indexOf('-') + 1),
    speed: spec.speed ?? '12',
    serial: spec.serial,
    manufacturer: spec.manufacturer,
    product: spec.productName,
    dev: `189:${minor}`,
    uevent: [
      'MAJOR=189',
      `MINOR=${minor}`,
      `DEVNAME=bus/usb/${String(bus).padStart(3, '0')}/${String(spec.devnum).padStart(3, '0')}`,
      'DEVTYPE=usb_device',
      'DRIVER=usb',
      `PRODUCT=${trimHex(spec.vendor)}/${trimHex(spec.product)}/${trimHex(spec.bcdDevice ?? '0100')}`,
      `TYPE=${parseInt(spec.deviceClass ?? '00', 16)}/0/0`,
      `BUSNUM=${String(bus).padStart(3, '0')}`,
      `DEVNUM=${String(spec.devnum).padStart(3, '0')}`,
    ].join('\n'),
  };
}

/** Adds root hub `usb<bus>` below its host controller, with its interface and its /dev/bus/usb node. */
function addRootHub(state: FixtureState, bus: number, options: RootHubOptions): void {
  const { sys } = state;
  const controller =
    options.controller ?? controllerDir(state, options.address ?? '0000:00:14.0', options.numaNode ?? 0);
  const dir = `${controller}/usb${bus}`;
  writeAttributes(sys, dir, {
    idVendor: '1d6b',
    idProduct: '0002',
    bDeviceClass: '09',
    busnum: String(bus),
    devnum: '1',
    devpath: '0',
    speed: '480',
    product: 'xHCI Host Controller',
  });
  writeAttributes(sys, `${dir}/${bus}-0:1.0`, { bInterfaceClass: '09', bInterfaceNumber: '00' });
  sys.linkTo(`bus/usb/devices/usb${bus}`, dir);
  sys.linkTo(`bus/usb/devices/${bus}-0:1.0`, `${dir}/${bus}-0:1.0`);
  state.dirs.set(`usb${bus}`, dir);
  addDevFile(sys, usbBusNodePath(bus, 1));
}

/** Adds a device below its parent hub, its interfaces and their nodes; returns its directory. */
function addDevice(state: FixtureState, spec: UsbDeviceSpec): string {
  const { sys } = state;
  const bus = busOf(spec.portPath);
  const dot = spec.portPath.lastIndexOf('.');
  const parentKey = dot > 0 ? spec.portPath.slice(0, dot) : `usb${bus}`;
  const parent = state.dirs.get(parentKey);
  if (parent === undefined) throw new Error(`fixture: parent ${parentKey} of ${spec.portPath} was not added`);
  const dir = `${parent}/${spec.portPath}`;
  writeAttributes(sys, dir, deviceAttributes(spec, bus));
  sys.linkTo(`bus/usb/devices/${spec.portPath}`, dir);
  const nodes = [usbBusNodePath(bus, spec.devnum)];
  (spec.interfaces ?? []).forEach((iface, index) => {
    const name = `${spec.portPath}:1.${index}`;
    const idir = `${dir}/${name}`;
    writeAttributes(sys, idir, {
      bInterfaceClass: iface.class,
      bInterfaceNumber: String(index).padStart(2, '0'),
    });
    if (iface.driver !== undefined) sys.linkTo(`${idir}/driver`, `bus/usb/drivers/${iface.driver}`);
    sys.linkTo(`bus/usb/devices/${name}`, idir);
    nodes.push(...addInterfaceNodes(state, spec, dir, index, iface));
  });
  if (spec.devNodes !== false) for (const node of nodes) addDevFile(sys, node);
  state.dirs.set(spec.portPath, dir);
  state.specs.set(spec.portPath, spec);
  state.nodesOf.set(spec.portPath, nodes);
  return dir;
}

/** Removes a device, its children and their links, then their /dev nodes (sysfs first, as the kernel does). */
function removeDevice(state: FixtureState, portPath: string): void {
  const { sys } = state;
  for (const child of [...state.specs.keys()].filter((p) => p.startsWith(`${portPath}.`))) {
    removeDevice(state, child);
  }
  const spec = state.specs.get(portPath);
  const dir = state.dirs.get(portPath);
  if (spec === undefined || dir === undefined) throw new Error(`fixture: ${portPath} is not plugged`);
  for (const link of state.classLinksOf.get(portPath) ?? []) unlinkSync(join(sys.root, link));
  (spec.interfaces ?? []).forEach((_, index) =>
    unlinkSync(join(sys.root, `bus/usb/devices/${portPath}:1.${index}`)),
  );
  unlinkSync(join(sys.root, `bus/usb/devices/${portPath}`));
  rmSync(join(sys.root, dir), { recursive: true, force: true });
  for (const node of state.nodesOf.get(portPath) ?? []) sys.removeDevNode(node);
  state.dirs.delete(portPath);
  state.specs.delete(portPath);
  state.nodesOf.delete(portPath);
  state.classLinksOf.delete(portPath);
}

/** Creates a USB fixture under os.tmpdir() (short name), optionally on top of an existing sysfs fixture. */
export function createUsbFixture(sys: SysfsFixture = createSysfsFixture()): UsbFixture {
  const state: FixtureState = {
    sys,
    dirs: new Map(),
    specs: new Map(),
    nodesOf: new Map(),
    classLinksOf: new Map(),
    controllers: new Map(),
    inputs: 0,
  };
  return {
    sys,
    addRootHub: (bus, options = {}) => addRootHub(state, bus, options),
    addDevice: (spec) => addDevice(state, spec),
    bindNodes(portPath, index, nodes) {
      const spec = state.specs.get(portPath);
      const dir = state.dirs.get(portPath);
      const iface = spec?.interfaces?.[index];
      if (spec === undefined || dir === undefined || iface === undefined)
        throw new Error(`fixture: ${portPath} has no interface ${index}`);
      const added = addInterfaceNodes(state, spec, dir, index, { class: iface.class, ...nodes });
      state.specs.set(portPath, {
        ...spec,
        interfaces: (spec.interfaces ?? []).map((old, i) => (i === index ? { ...old, ...nodes } : old)),
      });
      state.nodesOf.set(portPath, [...(state.nodesOf.get(portPath) ?? []), ...added]);
      if (spec.devNodes !== false) for (const node of added) addDevFile(sys, node);
    },
    removeDevice: (portPath) => removeDevice(state, portPath),
    replug(portPath, devnum) {
      const spec = state.specs.get(portPath);
      if (spec === undefined) throw new Error(`fixture: ${portPath} is not plugged`);
      removeDevice(state, portPath);
      addDevice(state, { ...spec, devnum });
    },
    remove: () => sys.remove(),
  };
}
