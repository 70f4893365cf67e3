import type { Sysfs } from '@kdp/topology';
import type { UsbNode, UsbNodeKind } from './usb-device';

/** What the interfaces of one USB device contribute: their classes and their device nodes. */
export interface InterfaceInfo {
  readonly interfaceClasses: readonly string[];
  readonly nodes: readonly UsbNode[];
  /** The entries of the device directory itself (so callers need not list it again). */
  readonly entries: readonly string[];
}

const HID_ID = /^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}$/;
const TTY_USB = /^ttyUSB\d+$/;
const TTY_ANY = /^tty[A-Za-z]+\d+$/;
const HIDRAW = /^hidraw\d+$/;
const VIDEO = /^video\d+$/;
const INPUT = /^input\d+$/;
const EVENT = /^event\d+$/;
const HEX2 = /^[0-9a-fA-F]{2}$/;

const KIND_ORDER: Record<UsbNodeKind, number> = { usb: 0, tty: 1, hidraw: 2, video: 3, input: 4 };

/** Class directories (of an interface, or of a HID device below one) and the node names they hold. */
const CLASS_DIRS = new Map<string, readonly [UsbNodeKind, RegExp]>([
  ['tty', ['tty', TTY_ANY]],
  ['video4linux', ['video', VIDEO]],
  ['hidraw', ['hidraw', HIDRAW]],
]);

/** The nodes below one directory of an interface: its usb-serial ttys, class directories and HID devices. */
async function nodesUnder(sysfs: Sysfs, dir: string, children: readonly string[]): Promise<UsbNode[]> {
  const found = await Promise.all(
    children.map(async (child): Promise<UsbNode[]> => {
      const path = `${dir}/${child}`;
      const classDir = CLASS_DIRS.get(child);
      if (TTY_USB.test(child)) return [{ kind: 'tty', path: `/dev/${child}` }];
      if (classDir !== undefined) {
        const [kind, pattern] = classDir;
        return (await sysfs.list(path))
          .filter((n) => pattern.test(n))
          .map((n) => ({ kind, path: `/dev/${n}` }));
      }
      if (child === 'input') {
        const inputs = (await sysfs.list(path)).filter((n) => INPUT.test(n));
        const events = (await Promise.all(inputs.map((input) => sysfs.list(`${path}/${input}`)))).flat();
        return events.filter((n) => EVENT.test(n)).map((n) => ({ kind: 'input', path: `/dev/input/${n}` }));
      }
      return HID_ID.test(child) ? nodesUnder(sysfs, path, await sysfs.list(path)) : [];
    }),
  );
  return found.flat();
}

/**
 * Finds the interfaces of the device at `deviceDir` (a real sysfs path relative to the root) and the device nodes
 * they own, by the kernel's layout: `ttyUSB*` (usb-serial), `tty/tty*` (cdc-acm), `video4linux/video*`,
 * `<hid-id>/hidraw/hidraw*`, and `[<hid-id>/]input/input*\/event*`. Child devices of a hub are not interfaces.
 */
export async function findInterfaceNodes(
  sysfs: Sysfs,
  deviceDir: string,
  name: string,
): Promise<InterfaceInfo> {
  const entries = await sysfs.list(deviceDir);
  const interfaces = entries.filter((entry) => entry.startsWith(`${name}:`));
  const classes = new Set<string>();
  const nodes = await Promise.all(
    interfaces.map(async (entry) => {
      const dir = `${deviceDir}/${entry}`;
      const [cls, children] = await Promise.all([sysfs.read(`${dir}/bInterfaceClass`), sysfs.list(dir)]);
      if (cls !== undefined && HEX2.test(cls)) classes.add(cls.toLowerCase());
      return nodesUnder(sysfs, dir, children);
    }),
  );
  const unique = new Map(nodes.flat().map((node) => [node.path, node]));
  const sorted = [...unique.values()].sort(
    (a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || compareNatural(a.path, b.path),
  );
  return { interfaceClasses: [...classes].sort(), nodes: sorted, entries };
}

/** Orders `ttyUSB2` before `ttyUSB10`. */
function compareNatural(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
