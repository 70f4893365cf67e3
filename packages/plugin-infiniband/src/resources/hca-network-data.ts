import type { DeviceNetworkData } from '@kdp/core';
import type { RdmaHca } from '../scan/read-rdma-inventory';

/** What {@link hcaNetworkData} reads sysfs through. */
export interface HcaNetworkSysfs {
  /** An attribute's content, trimmed; undefined when unreadable. */
  read(path: string): Promise<string | undefined>;
}

const HARDWARE_ADDRESS = /^[0-9a-f]{2}(:[0-9a-f]{2}){5,19}$/;

/**
 * An HCA's network state for its claim's status (KEP 4817): its PCI function's first netdev (`ib0`) as
 * `interfaceName` and that netdev's `address` (20 bytes for IPoIB, a MAC for RoCE), read now; undefined for an HCA
 * without a netdev. No IPs: the driver assigns none.
 */
export async function hcaNetworkData(
  sysfs: HcaNetworkSysfs,
  hca: Pick<RdmaHca, 'netdevs'>,
): Promise<DeviceNetworkData | undefined> {
  const netdev = hca.netdevs[0];
  if (netdev === undefined) return undefined;
  const address = (await sysfs.read(`class/net/${netdev}/address`))?.toLowerCase();
  return {
    interfaceName: netdev,
    ...(address !== undefined && HARDWARE_ADDRESS.test(address) ? { hardwareAddress: address } : {}),
  };
}
