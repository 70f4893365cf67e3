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
  const nodes: UsbNode[] = [];
  await Promise.all(
    interfaces.map(async (entry) => {
      const dir = `${deviceDir}/${entry}`;
      const [cls, children] = await Promise.all([sysfs.read(`${dir}/bInterfaceClass`), sysfs.list(dir)]);
      if (cls !== undefined && HEX2.test(cls)) classes.add(cls.toLowerCase());
      const add = (kind: UsbNodeKind, node: string): void => {
        nodes.push({ kind, path: `/dev/${node}` });
      };
      const inputs = async (inputDir: string): Promise<void> => {
        for (const input of (await sysfs.list(inputDir)).filter((n) => INPUT.test(n))) {
          for (const event of (await sysfs.list(`${inputDir}/${input}`)).filter((n) => EVENT.test(n))) {
            add('input', `input/${event}`);
          }
        }
      };
      const work: Array<Promise<void>> = [];
      for (const child of children) {
        if (TTY_USB.test(child)) add('tty', child);
        else if (child === 'tty') {
          work.push(
            sysfs.list(`${dir}/tty`).then((ttys) => {
              for (const tty of ttys.filter((n) => TTY_ANY.test(n))) add('tty', tty);
            }),
          );
        } else if (child === 'video4linux') {
          work.push(
            sysfs.list(`${dir}/video4linux`).then((videos) => {
              for (const video of videos.filter((n) => VIDEO.test(n))) add('video', video);
            }),
          );
        } else if (child === 'input') {
          work.push(inputs(`${dir}/input`));
        } else if (HID_ID.test(child)) {
          work.push(
            (async () => {
              const hid = `${dir}/${child}`;
              const hidChildren = await sysfs.list(hid);
              if (hidChildren.includes('hidraw')) {
                for (const raw of (await sysfs.list(`${hid}/hidraw`)).filter((n) => HIDRAW.test(n))) {
                  add('hidraw', raw);
                }
              }
              if (hidChildren.includes('input')) await inputs(`${hid}/input`);
            })(),
          );
        }
      }
      await Promise.all(work);
    }),
  );
  const unique = new Map(nodes.map((node) => [node.path, node]));
  const sorted = [...unique.values()].sort(
    (a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || compareNatural(a.path, b.path),
  );
  return { interfaceClasses: [...classes].sort(), nodes: sorted, entries };
}

/** Orders `ttyUSB2` before `ttyUSB10`. */
function compareNatural(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
