import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Where a USB device to unplug lives: a fixture tree's roots and a folder outside them to park it in. */
export interface UsbUnplugOptions {
  readonly sysfsRoot: string;
  readonly devRoot: string;
  /** The device's port path (`1-4`, or a hub such as `1-3`: its children go with it). */
  readonly portPath: string;
  /** A folder on the same file system, outside both roots, where the device's sysfs directory waits. */
  readonly holdingDir: string;
}

/** An unplugged device. */
export interface UnpluggedDevice {
  /** The `/dev` nodes that went away with it (host paths, `/dev/ttyACM0`). */
  readonly nodes: readonly string[];
  /** Plugs it in again exactly as it was: sysfs first, then its `/dev` nodes (as the kernel, then udev). */
  replug(): void;
}

/** Links in these sysfs folders that point into a device's directory belong to it. */
const LINK_DIRS = ['bus/usb/devices', 'class'];

/**
 * Unplugs a USB device of any fixture tree as the kernel and udev do: its links in `bus/usb/devices` and
 * `class/<class>`, then its sysfs directory (children included), then its `/dev` nodes (the device's own,
 * from `DEVNAME` of each `uevent` below it, and one per class device with a `dev` attribute, `/dev/input/` for
 * input devices). Nothing is lost: `replug()` puts every file back. Works on a tree whose fixture object is
 * not at hand (the demo's sample node), since it reads what is on disk.
 */
export function unplugUsbDevice(options: UsbUnplugOptions): UnpluggedDevice {
  const { sysfsRoot, devRoot, portPath } = options;
  const deviceDir = realpathSync(join(sysfsRoot, 'bus/usb/devices', portPath));
  const inside = (path: string): boolean => path === deviceDir || path.startsWith(deviceDir + sep);

  const links: { path: string; target: string }[] = [];
  const nodes = new Set<string>();
  for (const dir of LINK_DIRS.flatMap((d) => linkFolders(join(sysfsRoot, d)))) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!lstatSync(path).isSymbolicLink()) continue;
      let resolved: string;
      try {
        resolved = realpathSync(path);
      } catch {
        continue;
      }
      if (!inside(resolved)) continue;
      links.push({ path, target: readlinkSync(path) });
      const cls = relative(join(sysfsRoot, 'class'), dir);
      if (!cls.startsWith('..') && existsSync(join(resolved, 'dev')))
        nodes.add(cls === 'input' ? `/dev/input/${name}` : `/dev/${name}`);
    }
  }
  for (const uevent of findFiles(deviceDir, 'uevent')) {
    const devname = /^DEVNAME=(.+)$/m.exec(readFileSync(uevent, 'utf8'))?.[1];
    if (devname !== undefined) nodes.add(`/dev/${devname}`);
  }
  const devPath = (node: string): string => join(devRoot, node.slice('/dev/'.length));
  const saved = [...nodes].flatMap((node) =>
    existsSync(devPath(node)) ? [{ node, content: readFileSync(devPath(node)) }] : [],
  );

  mkdirSync(options.holdingDir, { recursive: true });
  const parked = join(options.holdingDir, portPath);
  rmSync(parked, { recursive: true, force: true });
  for (const link of links) rmSync(link.path);
  renameSync(deviceDir, parked);
  for (const { node } of saved) rmSync(devPath(node), { force: true });

  return {
    nodes: saved.map((s) => s.node),
    replug: () => {
      renameSync(parked, deviceDir);
      for (const link of links) symlinkSync(link.target, link.path);
      for (const { node, content } of saved) {
        mkdirSync(dirname(devPath(node)), { recursive: true });
        writeFileSync(devPath(node), content);
      }
    },
  };
}

/** `dir` itself, or for `class` each of its class folders. */
function linkFolders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (!dir.endsWith(`${sep}class`)) return [dir];
  return readdirSync(dir).map((name) => join(dir, name));
}

/** Every file called `name` below `dir` (real directories only; links are not followed). */
function findFiles(dir: string, name: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findFiles(path, name));
    else if (entry.isFile() && entry.name === name) found.push(path);
  }
  return found;
}
