import type { ExcludedDevice } from '@kdp/core/plugin';
import type { Host, PciDevice } from '@kdp/topology';
import { pciInfoOf, type FpgaPciInfo } from './read-pci-info';

/** PCI vendors whose functions Xilinx's plugin considers: Xilinx, AWS, Arista, Advantech. */
export const AMD_FPGA_VENDORS: readonly string[] = ['0x10ee', '0x1d0f', '0x3475', '0x13fe'];

/** One AMD/Xilinx user function (xocl), paired with its management function (xclmgmt) when present. */
export interface AmdCard {
  /** BDF of the user function, the device ID (as Xilinx's plugin). */
  readonly address: string;
  readonly sysfsPath: string;
  /** Shell name, e.g. `xilinx_u200_xdma_201830_1`. */
  readonly vbnv: string;
  readonly timestamp: string;
  /** `/dev/dri/renderD128`, when the user function has a DRM render node. */
  readonly renderNode?: string;
  /** `/dev/xclmgmt15104`, when the management function is present. */
  readonly mgmtNode?: string;
  readonly mgmtAddress?: string;
  readonly problems: readonly string[];
  readonly pci: FpgaPciInfo;
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
export async function scanAmdCards(host: Host, pciDevices: readonly PciDevice[]): Promise<AmdScan> {
  const { sysfs, devfs } = host;
  const cards: AmdCard[] = [];
  const excluded: ExcludedDevice[] = [];
  const warnings: string[] = [];
  const candidates = pciDevices.filter((d) => d.vendor !== undefined && AMD_FPGA_VENDORS.includes(d.vendor));
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
      const state = node === undefined ? undefined : await devfs.node(node);
      if (state?.ok === false) problems.push(state.reason);
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
      pci: pciInfoOf(device),
    });
  }
  return { cards, excluded, warnings };
}
