import type { ChangeProbe } from '@kdp/core/plugin';
import type { FpgaScan } from './scan-fpgas';

/** Class directories where Intel DFL and OPAE containers appear. */
const CLASS_DIRS = ['class/fpga_region', 'class/fpga'];

/**
 * What can change between two scans, read on every poll tick (sysfs inotify does not fire on real kernels):
 * the lists where cards and PCI functions appear; per Intel port its container's entries (ports, FMEs), its
 * `afu_id` (reprogramming moves it to another resource), its `errors/errors` register and its interface ID;
 * per AMD card its function's entries (`rom.N` vanishes on `xbutil reset`, `user_pf` on an unbind) and its
 * `drm` directory; and the directory of every excluded candidate, whose problem may go away. Device nodes are
 * left to the /dev watch.
 */
export function fpgaChangeProbe(scan: FpgaScan): ChangeProbe {
  const list = new Set<string>([...CLASS_DIRS, 'bus/pci/devices']);
  const read = new Set<string>();
  for (const port of scan.intel) {
    list.add(port.sysfsPath.slice(0, port.sysfsPath.lastIndexOf('/')));
    read.add(`${port.sysfsPath}/afu_id`);
    read.add(`${port.sysfsPath}/errors/errors`);
    if (port.interfaceIdFile !== undefined) read.add(port.interfaceIdFile);
  }
  for (const card of scan.amd) {
    list.add(card.sysfsPath);
    list.add(`${card.sysfsPath}/drm`);
  }
  for (const { path } of scan.excluded) if (path.startsWith('/sys/')) list.add(path.slice('/sys/'.length));
  return { sysfs: { list: [...list], read: [...read] } };
}
