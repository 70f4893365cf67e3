import { goString } from './go-json';

/** The Multus device-info spec version upstream writes. */
export const DEVICE_INFO_VERSION = '1.1.0';

/** Where upstream (through network-attachment-definition-client) writes device-info files for device plugins. */
export const DEFAULT_DEVINFO_DIR = '/var/run/k8s.cni.cncf.io/devinfo/dp';

/** `<prefix>-<name>-<id>-device.json`: the resource's `/` becomes `-`, as upstream names the file. */
export function deviceInfoFileName(resourceName: string, deviceId: string): string {
  return `${resourceName.replace(/\//g, '-')}-${deviceId.replace(/\//g, '-')}-device.json`;
}

/**
 * The device-info document of a PCI device, in the field order Go's struct encoding gives it:
 * `{"type":"pci","version":"1.1.0","pci":{"pci-address":…,"rdma-device":…}}` (rdma-device only when set).
 */
export function pciDeviceInfo(address: string, rdmaDevices: readonly string[] = []): string {
  const rdma = rdmaDevices.length > 0 ? `,"rdma-device":${goString(rdmaDevices.join(','))}` : '';
  return `{"type":"pci","version":"${DEVICE_INFO_VERSION}","pci":{"pci-address":${goString(address)}${rdma}}}`;
}
