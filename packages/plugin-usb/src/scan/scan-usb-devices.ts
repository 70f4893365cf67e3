import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ExcludedDevice } from '@kdp/core/plugin';
import type { Sysfs } from '@kdp/topology';
import {
  isRootHubName,
  isUsbDeviceName,
  readUsbDevice,
  type UsbDeviceRead,
  type UsbStringCache,
} from './read-usb-device';
import type { UsbDevice, UsbNodeKind } from './usb-device';

/** One scan of `/sys/bus/usb/devices`. */
export interface UsbScan {
  /** Devices behind root ports, in port-path order; root hubs and interfaces are never devices here. */
  readonly devices: readonly UsbDevice[];
  /** Root hubs and unreadable devices, and why (paths relative to the sysfs root). */
  readonly skipped: readonly ExcludedDevice[];
  /** False when the host has no USB bus at all (`/sys/bus/usb/devices` absent). */
  readonly hasUsbBus: boolean;
}

/**
 * The sysfs class directories of the device nodes found below USB interfaces, the `/dev` directory of their
 * nodes and their node kind: a node appearing or leaving changes one of these listings.
 */
export const NODE_CLASSES = [
  ['tty', '/dev', 'tty'],
  ['hidraw', '/dev', 'hidraw'],
  ['video4linux', '/dev', 'video'],
  ['input', '/dev/input', 'input'],
] as const satisfies ReadonlyArray<readonly [string, string, UsbNodeKind]>;

/** One device as the last scan read it, and what says whether it is still the same. */
interface CachedRead {
  /** Its real directory, relative to the sysfs root. */
  readonly dir: string;
  /** The directory's identity (inode number and change time): an unplug removes it, a replug makes another. */
  readonly identity: string;
  /** Its interfaces' names in the `bus/usb/devices` listing. */
  readonly interfaces: string;
  readonly device: UsbDevice;
}

/**
 * What {@link scanUsbDevices} keeps between scans of a serving process (from {@link createUsbScanCache}):
 * descriptor strings per plug, NUMA nodes per controller, and every device's last read. A device is read again
 * only when its directory is another one (a replug), its interfaces in the `bus/usb/devices` listing
 * changed, or the class entries of its nodes (`class/tty`, `class/hidraw`, `class/video4linux`, `class/input`)
 * did; otherwise a scan costs one listing per directory and one `stat` per device.
 */
export interface UsbScanCache {
  readonly strings: UsbStringCache;
  readonly numa: Map<string, number | undefined>;
  readonly devices: Map<string, CachedRead>;
  /** Class directory → its entries at the last scan. */
  readonly classes: Map<string, readonly string[]>;
}

/** An empty {@link UsbScanCache}. */
export function createUsbScanCache(): UsbScanCache {
  return { strings: new Map(), numa: new Map(), devices: new Map(), classes: new Map() };
}

/**
 * Scans every USB device under the sysfs root; never throws (garbage degrades one device). With a `cache`,
 * unchanged devices are not read again (see {@link UsbScanCache}) and entries of unplugged devices are dropped.
 */
export async function scanUsbDevices(sysfs: Sysfs, cache?: UsbScanCache): Promise<UsbScan> {
  const hasUsbBus = await sysfs.exists('bus/usb/devices');
  const names = await sysfs.list('bus/usb/devices');
  const skipped: ExcludedDevice[] = [];
  const candidates: string[] = [];
  const interfaces = new Map<string, string[]>();
  for (const name of names) {
    const colon = name.indexOf(':');
    if (colon > 0) {
      // An interface (`1-1.4:1.0`, `1-0:1.0` of a root hub): never a device, but part of its device's state.
      const owner = name.slice(0, colon);
      const list = interfaces.get(owner);
      if (list === undefined) interfaces.set(owner, [name]);
      else list.push(name);
    } else if (isRootHubName(name)) skipped.push({ path: `bus/usb/devices/${name}`, reason: 'root hub' });
    else if (isUsbDeviceName(name)) candidates.push(name);
  }
  const dirty = cache !== undefined ? await changedNodeOwners(sysfs, cache) : new Set<string>();
  // One device after another: the reads are synchronous underneath, and a cold scan of hundreds of devices
  // then holds one device's garbage at a time instead of all of it.
  const reads: UsbDeviceRead[] = [];
  for (const name of candidates) {
    const ifaces = (interfaces.get(name) ?? []).join(',');
    const cached = cache?.devices.get(name);
    if (
      cached !== undefined &&
      cached.interfaces === ifaces &&
      !dirty.has(name) &&
      identityOf(sysfs, cached.dir) === cached.identity
    ) {
      reads.push({ ok: true, device: cached.device, dir: cached.dir });
      continue;
    }
    const read = await readUsbDevice(sysfs, name, cache);
    const identity = read.ok ? identityOf(sysfs, read.dir) : undefined;
    if (cache !== undefined) {
      if (read.ok && identity !== undefined) {
        cache.devices.set(name, { dir: read.dir, identity, interfaces: ifaces, device: read.device });
      } else cache.devices.delete(name);
    }
    reads.push(read);
  }
  const devices: UsbDevice[] = [];
  for (const read of reads) {
    if (read.ok) devices.push(read.device);
    else skipped.push({ path: read.path, reason: read.reason });
  }
  if (cache !== undefined) forget(cache, new Set(candidates), devices);
  devices.sort((a, b) => comparePortPaths(a.portPath, b.portPath));
  return { devices, skipped, hasUsbBus };
}

/**
 * Lists the node class directories and returns the port paths of the devices whose nodes came or went since
 * the last scan: a node that left names its owner through the cached reads, one that came through its class
 * link (`class/tty/ttyUSB3` → `…/1-4.3/1-4.3:1.0/ttyUSB3/tty/ttyUSB3`).
 */
async function changedNodeOwners(sysfs: Sysfs, cache: UsbScanCache): Promise<Set<string>> {
  const dirty = new Set<string>();
  let owners: Map<string, string> | undefined;
  for (const [cls, devDir] of NODE_CLASSES) {
    const dir = `class/${cls}`;
    const now = await sysfs.list(dir);
    const before = cache.classes.get(dir);
    cache.classes.set(dir, now);
    if (before === undefined) continue; // The first scan reads every device anyway.
    const was = new Set(before);
    const is = new Set(now);
    for (const name of before) {
      if (is.has(name)) continue;
      owners ??= nodeOwners(cache);
      const owner = owners.get(`${devDir}/${name}`);
      if (owner !== undefined) dirty.add(owner);
    }
    for (const name of now) {
      if (was.has(name)) continue;
      const owner = usbDeviceAbove(await sysfs.resolve(`${dir}/${name}`));
      if (owner !== undefined) dirty.add(owner);
    }
  }
  return dirty;
}

/**
 * A resolved directory's inode number and change time (one `stat`); undefined when it is gone. sysfs numbers
 * its inodes cyclically, so a new directory has a new number; other filesystems (fixtures) may reuse a number
 * at once, but never with the same change time.
 */
function identityOf(sysfs: Sysfs, dir: string): string | undefined {
  const stat = statSync(join(sysfs.root, dir), { throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.ino}/${stat.ctimeMs}`;
}

/** The USB device a resolved path lies below (`…/1-4.3/1-4.3:1.0/ttyUSB3/tty/ttyUSB3` → `1-4.3`), if any. */
function usbDeviceAbove(real: string | undefined): string | undefined {
  const segments = real?.split('/') ?? [];
  for (let i = segments.length - 1; i >= 0; i--) {
    if (isUsbDeviceName(segments[i] as string)) return segments[i];
  }
  return undefined;
}

/** Node path → the port path of the cached device that owns it. */
function nodeOwners(cache: UsbScanCache): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [portPath, { device }] of cache.devices) {
    for (const node of device.nodes) owners.set(node.path, portPath);
  }
  return owners;
}

/** Drops what belongs to devices no longer there: their cached reads and their plugs' descriptor strings. */
function forget(cache: UsbScanCache, present: ReadonlySet<string>, devices: readonly UsbDevice[]): void {
  for (const name of cache.devices.keys()) if (!present.has(name)) cache.devices.delete(name);
  const live = new Set(devices.map((d) => `${d.portPath}@${d.busnum}/${d.devnum}`));
  for (const key of cache.strings.keys()) if (!live.has(key)) cache.strings.delete(key);
}

/** Port path → its numbers (`1-4.2` → [1, 4, 2]), kept: the same few hundred paths are sorted on every scan. */
const portNumbers = new Map<string, readonly number[]>();
const numbersOf = (portPath: string): readonly number[] => {
  let numbers = portNumbers.get(portPath);
  if (numbers === undefined) {
    if (portNumbers.size > 4096) portNumbers.clear();
    numbers = portPath.split(/[-.]/).map(Number);
    portNumbers.set(portPath, numbers);
  }
  return numbers;
};

/** Orders port paths numerically, bus first: `1-2` < `1-10` < `2-1`. */
export function comparePortPaths(a: string, b: string): number {
  const pa = numbersOf(a);
  const pb = numbersOf(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
