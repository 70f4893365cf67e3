import type { DeviceNetworkData } from '@kdp/core';
import type { NicFunction } from '../scan/nic-function';

/** What {@link readNetworkData} reads sysfs through. */
export interface NetworkDataSysfs {
  /** An attribute's content, trimmed; undefined when unreadable. */
  read(path: string): Promise<string | undefined>;
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5,19}$/;

/**
 * A function's network state for its claim's status (KEP 4817): its first netdev as `interfaceName` and that
 * netdev's hardware address (`net/<netdev>/address`, a MAC, or the 20-byte address of an InfiniBand port), read now;
 * undefined for a function without a netdev (bound to vfio-pci). The driver assigns no IPs, so none are reported.
 */
export async function readNetworkData(
  sysfs: NetworkDataSysfs,
  fn: Pick<NicFunction, 'sysfsPath' | 'netdevs'>,
): Promise<DeviceNetworkData | undefined> {
  const netdev = fn.netdevs[0];
  if (netdev === undefined) return undefined;
  const address = (await sysfs.read(`${fn.sysfsPath}/net/${netdev}/address`))?.toLowerCase();
  return {
    interfaceName: netdev,
    ...(address !== undefined && MAC.test(address) ? { hardwareAddress: address } : {}),
  };
}
