import type { ExcludedDevice } from '@kdp/core';
import type { PciDevice, Sysfs } from '@kdp/topology';
import { devNodeExists } from './dev-node-check';
import type { AmdCard } from './fpga-model';

/** PCI vendors whose functions Xilinx's plugin considers: Xilinx, AWS, Arista, Advantech. */
export const AMD_FPGA_VENDORS: readonly string[] = ['0x10ee', '0x1d0f', '0x3475', '0x13fe'];

/** Options of {@link scanAmdCards}. */
export interface ScanAmdOptions {
  readonly sysfs: Sysfs;
  readonly devRoot: string;
  /** Every PCI function of the machine (from `enumeratePciDevices`). */
  readonly pciDevices: readonly PciDevice[];
}

/** Result of {@link scanAmdCards}. */
export interface AmdScan {
  readonly cards: AmdCard[];
  readonly excluded: ExcludedDevice[];
  readonly warnings: string[];
}

/** The slot of a BDF, the key that pairs a card's management and user functions ("0000:3b:00"). */
const slotOf = (address: string): string => address.slice(0, address.lastIndexOf('.'));

/**
 * Finds AMD/Xilinx Alveo user functions (a `user_pf` file, xocl) and pairs each with its management function
 * (`mgmt_pf`, xclmgmt) on the same slot. The shell comes from `rom.N/VBNV` and `rom.N/timestamp`; a user
 * function without them (e.g. right after `xbutil reset`) is excluded until they return. VFs with `user_pf`
 * are devices of their own.
 */
export async function scanAmdCards(options: ScanAmdOptions): Promise<AmdScan> {
  const { sysfs } = options;
  const cards: AmdCard[] = [];
  const excluded: ExcludedDevice[] = [];
  const warnings: string[] = [];
  const candidates = options.pciDevices.filter(
    (d) => d.vendor !== undefined && AMD_FPGA_VENDORS.includes(d.vendor),
  );
  const users: PciDevice[] = [];
  const mgmtBySlot = new Map<string, { address: string; instance?: number }>();
  for (const device of candidates) {
    const [user, mgmt] = await Promise.all([
      sysfs.exists(`${device.sysfsPath}/user_pf`),
      sysfs.exists(`${device.sysfsPath}/mgmt_pf`),
    ]);
    if (user) users.push(device);
    else if (mgmt) {
      const instance = await sysfs.readInt(`${device.sysfsPath}/instance`);
      if (instance === undefined)
        warnings.push(`${device.address}: xclmgmt instance is unreadable; no /dev/xclmgmt node`);
      mgmtBySlot.set(slotOf(device.address), {
        address: device.address,
        ...(instance !== undefined ? { instance } : {}),
      });
    } else if (device.vendor === '0x10ee') {
      excluded.push({
        path: `/sys/bus/pci/devices/${device.address}`,
        reason: `Xilinx function ${device.vendor}:${device.device ?? '?'} has neither user_pf nor mgmt_pf (xocl/xclmgmt not bound, driver ${device.driver ?? 'none'})`,
      });
    }
  }
  for (const device of users) {
    const dir = device.sysfsPath;
    const entries = await sysfs.list(dir);
    const rom = entries.find((e) => /^rom\.\d+$/.test(e));
    const path = `/sys/bus/pci/devices/${device.address}`;
    if (rom === undefined) {
      excluded.push({
        path,
        reason: 'no rom.* folder: the shell is not loaded (it vanishes after xbutil reset)',
      });
      continue;
    }
    const [vbnv, timestamp] = await Promise.all([
      sysfs.read(`${dir}/${rom}/VBNV`),
      sysfs.read(`${dir}/${rom}/timestamp`),
    ]);
    if (vbnv === undefined || vbnv === '' || timestamp === undefined || !/^\d+$/.test(timestamp)) {
      excluded.push({
        path,
        reason: `shell name unreadable: ${rom}/VBNV=${JSON.stringify(vbnv ?? null)} ${rom}/timestamp=${JSON.stringify(timestamp ?? null)}`,
      });
      continue;
    }
    const render = (await sysfs.list(`${dir}/drm`)).find((e) => /^renderD\d+$/.test(e));
    const mgmt = device.physfn === undefined ? mgmtBySlot.get(slotOf(device.address)) : undefined;
    const renderNode = render === undefined ? undefined : `/dev/dri/${render}`;
    const mgmtNode = mgmt?.instance === undefined ? undefined : `/dev/xclmgmt${mgmt.instance}`;
    const problems: string[] = [];
    if (renderNode === undefined) problems.push('the user function has no DRM render node');
    for (const node of [renderNode, mgmtNode]) {
      if (node !== undefined && !(await devNodeExists(options.devRoot, node)))
        problems.push(`${node} is missing`);
    }
    cards.push({
      address: device.address,
      sysfsPath: dir,
      vbnv,
      timestamp,
      ...(renderNode !== undefined ? { renderNode } : {}),
      ...(mgmtNode !== undefined ? { mgmtNode } : {}),
      ...(mgmt !== undefined ? { mgmtAddress: mgmt.address } : {}),
      problems,
      pci: {
        address: device.address,
        ...(device.vendor !== undefined ? { vendor: device.vendor } : {}),
        ...(device.device !== undefined ? { device: device.device } : {}),
        ...(device.physfn !== undefined ? { physfn: device.physfn } : {}),
        numaNodes: device.numaNode === undefined ? [] : [device.numaNode],
        pciePath: device.pciePath,
      },
    });
  }
  return { cards, excluded, warnings };
}
