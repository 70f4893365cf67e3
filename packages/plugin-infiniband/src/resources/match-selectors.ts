import type { RdmaSelectors } from '../config';
import type { RdmaHca, RdmaPort } from '../scan/read-rdma-inventory';

/** Whether an RDMA device matches a resource's selectors, which of its ports count, or why not. */
export type SelectorMatch =
  | { readonly matched: true; readonly ports: readonly RdmaPort[] }
  | { readonly matched: false; readonly reason: string };

const hexId = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.trim().toLowerCase().replace(/^0x/, '').padStart(4, '0');

const LINK_LAYER: Readonly<Record<string, string>> = {
  infiniband: 'InfiniBand',
  ib: 'InfiniBand',
  ether: 'Ethernet',
  ethernet: 'Ethernet',
  eth: 'Ethernet',
  roce: 'Ethernet',
};

const shown = (values: readonly string[]): string => `[${values.join(',')}]`;

/**
 * Applies k8s-rdma-shared-dev-plugin selectors (AND across keys, OR within a list, empty list = any) to one
 * device. `extraIfNames` carries the deprecated top-level `devices` list. With `linkTypes`, only the ports of
 * those link layers count (for health and for the umad/issm nodes handed out).
 */
export function matchSelectors(
  hca: RdmaHca,
  selectors: RdmaSelectors,
  extraIfNames: readonly string[] = [],
): SelectorMatch {
  const vendor = hexId(hca.pci?.vendor);
  const device = hexId(hca.pci?.device);
  const driver = hca.pci?.driver;
  if (
    selectors.vendors.length > 0 &&
    (vendor === undefined || !selectors.vendors.map(hexId).includes(vendor))
  ) {
    return {
      matched: false,
      reason: `vendor ${vendor ?? 'unknown'} not in vendors=${shown(selectors.vendors)}`,
    };
  }
  if (
    selectors.deviceIDs.length > 0 &&
    (device === undefined || !selectors.deviceIDs.map(hexId).includes(device))
  ) {
    return {
      matched: false,
      reason: `device ID ${device ?? 'unknown'} not in deviceIDs=${shown(selectors.deviceIDs)}`,
    };
  }
  if (selectors.drivers.length > 0 && (driver === undefined || !selectors.drivers.includes(driver))) {
    return {
      matched: false,
      reason: `driver ${driver ?? 'none'} does not match selector drivers=${shown(selectors.drivers)}`,
    };
  }
  const ifNames = [...selectors.ifNames, ...extraIfNames];
  if (ifNames.length > 0 && !hca.netdevs.some((name) => ifNames.includes(name))) {
    return {
      matched: false,
      reason: `interfaces ${shown(hca.netdevs)} not in ifNames=${shown(ifNames)}`,
    };
  }
  if (selectors.linkTypes.length === 0) return { matched: true, ports: hca.ports };
  const layers = new Set(selectors.linkTypes.map((type) => LINK_LAYER[type]));
  const ports = hca.ports.filter((port) => port.linkLayer !== undefined && layers.has(port.linkLayer));
  if (ports.length === 0) {
    const seen = [...new Set(hca.ports.map((port) => port.linkLayer ?? 'unknown'))];
    return {
      matched: false,
      reason: `link layers ${shown(seen)} not in linkTypes=${shown(selectors.linkTypes)}`,
    };
  }
  return { matched: true, ports };
}
