import type { DiscoveredDevice, ExcludedDevice, PluginDevice } from '@kdp/core';
import { hcaDeviceNodes } from './hca-device-nodes';
import { hcaHealth } from './hca-health';
import { matchSelectors } from './match-selectors';
import { resourceNameOf, type RdmaConfig, type RdmaResourceConfig } from './rdma-config';
import type { RdmaHca, RdmaInventory, RdmaPort } from './read-rdma-inventory';

/** What a device carries to the allocate hook: the RDMA devices (ibdev names) it grants. */
export interface RdmaPayload {
  readonly ibdevs: readonly string[];
}

/** One resource with the devices it advertises now. */
export interface PlannedResource {
  readonly name: string;
  readonly mode: 'shared' | 'exclusive';
  readonly config: RdmaResourceConfig;
  readonly devices: readonly PluginDevice<RdmaPayload>[];
  /** The same devices as `discover` prints them. */
  readonly discovered: readonly DiscoveredDevice[];
}

/** Every resource of the configuration against one inventory. */
export interface ResourcePlan {
  readonly resources: readonly PlannedResource[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

interface Matched {
  readonly hca: RdmaHca;
  readonly ports: readonly RdmaPort[];
}

const SHARED_PERMISSIONS = 'rwm'; // as k8s-rdma-shared-dev-plugin
const EXCLUSIVE_PERMISSIONS = 'rw'; // as sriov-network-device-plugin with isRdma

const portText = (port: RdmaPort): string =>
  [port.state?.name ?? 'unknown', port.physState?.name ?? 'unknown', port.linkLayer ?? 'unknown', port.rate]
    .filter((part) => part !== undefined)
    .join(' ');

/** Facts about one RDMA device for `discover`, keys prefixed with `prefix`. */
function hcaAttributes(hca: RdmaHca, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (key: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') out[`${prefix}${key}`] = value;
  };
  put('ibdev', hca.name);
  put('vendor', hca.pci?.vendor);
  put('device', hca.pci?.device);
  put('driver', hca.pci?.driver);
  put('physfn', hca.pci?.physfn);
  put('nodeGuid', hca.nodeGuid);
  put('fwVer', hca.fwVer);
  put('netdevs', hca.netdevs.join(','));
  put('charDevices', hca.charDevices.map((d) => d.name).join(','));
  for (const port of hca.ports) put(`port${port.number}`, portText(port));
  return out;
}

const toDiscovered = (
  device: PluginDevice<RdmaPayload>,
  pciAddress: string | undefined,
  attributes: Record<string, string>,
): DiscoveredDevice => ({
  id: device.id,
  health: device.health,
  numaNodes: [...(device.numaNodes ?? [])],
  pciAddress: pciAddress ?? null,
  deviceSpecs: (device.allocation?.devices ?? []).map((node) => ({
    containerPath: node.containerPath,
    hostPath: node.hostPath,
    permissions: node.permissions ?? 'rw',
  })),
  attributes,
});

function planExclusive(
  inventory: RdmaInventory,
  matched: readonly Matched[],
): { devices: PluginDevice<RdmaPayload>[]; discovered: DiscoveredDevice[] } {
  const addressCount = new Map<string, number>();
  for (const { hca } of matched) {
    if (hca.pciAddress !== undefined)
      addressCount.set(hca.pciAddress, (addressCount.get(hca.pciAddress) ?? 0) + 1);
  }
  const devices: PluginDevice<RdmaPayload>[] = [];
  const discovered: DiscoveredDevice[] = [];
  for (const entry of matched) {
    const { hca } = entry;
    // The PCI address is stable across reboots (ibdev names are not); an ibdev name only where it is ambiguous.
    const id =
      hca.pciAddress !== undefined && addressCount.get(hca.pciAddress) === 1 ? hca.pciAddress : hca.name;
    const health = hcaHealth(hca, entry.ports);
    const device: PluginDevice<RdmaPayload> = {
      id,
      health: health.healthy ? 'Healthy' : 'Unhealthy',
      numaNodes: hca.numaNodes,
      pciePath: hca.pciePath,
      allocation: { devices: hcaDeviceNodes(inventory, [entry], EXCLUSIVE_PERMISSIONS) },
      payload: { ibdevs: [hca.name] },
    };
    devices.push(device);
    const attributes = hcaAttributes(hca, '');
    if (health.reason !== undefined) attributes['unhealthy'] = health.reason;
    discovered.push(toDiscovered(device, hca.pciAddress, attributes));
  }
  return { devices, discovered };
}

function planShared(
  inventory: RdmaInventory,
  resource: RdmaResourceConfig,
  matched: readonly Matched[],
): { devices: PluginDevice<RdmaPayload>[]; discovered: DiscoveredDevice[] } {
  if (matched.length === 0) return { devices: [], discovered: [] };
  const healths = matched.map((entry) => ({ entry, health: hcaHealth(entry.hca, entry.ports) }));
  const healthy = healths.some(({ health }) => health.healthy);
  // The shared IDs stand for all matched HCAs: a NUMA node only when they all sit on the same one.
  const nodes = new Set(matched.flatMap(({ hca }) => (hca.numaNodes.length === 1 ? hca.numaNodes : [-1])));
  const numaNodes = nodes.size === 1 && !nodes.has(-1) ? [...nodes] : [];
  const allocation = { devices: hcaDeviceNodes(inventory, matched, SHARED_PERMISSIONS) };
  const payload = { ibdevs: matched.map(({ hca }) => hca.name) };
  const attributes: Record<string, string> = { hcas: payload.ibdevs.join(',') };
  for (const { entry, health } of healths) {
    Object.assign(attributes, hcaAttributes(entry.hca, `${entry.hca.name}.`));
    if (health.reason !== undefined) attributes[`${entry.hca.name}.unhealthy`] = health.reason;
  }
  const devices: PluginDevice<RdmaPayload>[] = [];
  const discovered: DiscoveredDevice[] = [];
  for (let n = 0; n < (resource.rdmaHcaMax ?? 0); n++) {
    const device: PluginDevice<RdmaPayload> = {
      id: String(n),
      health: healthy ? 'Healthy' : 'Unhealthy',
      numaNodes,
      allocation,
      payload,
    };
    devices.push(device);
    discovered.push(toDiscovered(device, undefined, attributes));
  }
  return { devices, discovered };
}

/** Config-level warnings (deprecated or ignored keys), independent of the hardware. */
export function configWarnings(config: RdmaConfig): string[] {
  const warnings: string[] = [];
  if (config.periodicUpdateInterval !== undefined) {
    warnings.push(
      `periodicUpdateInterval: ignored; devices and port health are rescanned every ${config.pollIntervalMs} ms and on /dev changes`,
    );
  }
  config.configList.forEach((resource, index) => {
    if (resource.devices !== undefined) {
      warnings.push(`configList[${index}].devices: deprecated; treated as selectors.ifNames`);
    }
    if (resource.mode === 'exclusive' && resource.rdmaHcaMax !== undefined) {
      warnings.push(`configList[${index}].rdmaHcaMax: ignored in exclusive mode (one device per HCA)`);
    }
    if (resource.mode === 'shared' && resource.rdmaHcaMax === 0) {
      warnings.push(
        `configList[${index}].rdmaHcaMax: 0, so ${resourceNameOf(resource)} advertises no devices`,
      );
    }
  });
  return warnings;
}

/**
 * Applies the configuration to an inventory. Shared resources each take every device their selectors match
 * (several shared resources may name the same HCA, as upstream); exclusive resources claim devices in
 * configuration order, so a device is advertised by at most one exclusive resource.
 */
export function planResources(config: RdmaConfig, inventory: RdmaInventory): ResourcePlan {
  const warnings: string[] = [...configWarnings(config), ...inventory.warnings];
  const claimed = new Map<string, string>();
  const sharedBy = new Map<string, string[]>();
  const reasons = new Map<string, string[]>();
  const resources: PlannedResource[] = [];
  for (const resource of config.configList) {
    const name = resourceNameOf(resource);
    const matched: Matched[] = [];
    for (const hca of inventory.hcas) {
      const match = matchSelectors(hca, resource.selectors, resource.devices ?? []);
      if (!match.matched) {
        reasons.set(hca.name, [...(reasons.get(hca.name) ?? []), `${name}: ${match.reason}`]);
        continue;
      }
      if (resource.mode === 'exclusive') {
        const owner = claimed.get(hca.name);
        if (owner !== undefined) {
          reasons.set(hca.name, [...(reasons.get(hca.name) ?? []), `${name}: already exclusive to ${owner}`]);
          continue;
        }
        claimed.set(hca.name, name);
      } else {
        sharedBy.set(hca.name, [...(sharedBy.get(hca.name) ?? []), name]);
      }
      matched.push({ hca, ports: match.ports });
    }
    const planned =
      resource.mode === 'exclusive'
        ? planExclusive(inventory, matched)
        : planShared(inventory, resource, matched);
    if (matched.length === 0)
      warnings.push(`${name}: no RDMA device matches its selectors; it advertises no devices`);
    resources.push({ name, mode: resource.mode, config: resource, ...planned });
  }
  for (const [hca, owner] of claimed) {
    const shared = sharedBy.get(hca);
    if (shared !== undefined) {
      warnings.push(`${hca} is exclusive to ${owner} and also shared through ${shared.join(', ')}`);
    }
  }
  const excluded: ExcludedDevice[] = [...inventory.excluded];
  for (const hca of inventory.hcas) {
    if (claimed.has(hca.name) || sharedBy.has(hca.name)) continue;
    excluded.push({
      path: hca.path,
      reason: (reasons.get(hca.name) ?? ['no resource is configured']).join('; '),
    });
  }
  return { resources, excluded, warnings };
}
