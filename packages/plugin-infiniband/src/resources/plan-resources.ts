import { topologyPreferredAllocation, type PluginDevice, type ResourceDraHooks } from '@kdp/core';
import type { ExcludedDevice, ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import type { DeviceLocality } from '@kdp/topology';
import { resourceNameOf, type RdmaConfig, type RdmaResourceConfig } from '../config';
import type { RdmaHca, RdmaInventory, RdmaPort } from '../scan/read-rdma-inventory';
import { hcaDeviceNodes } from '../allocate/hca-device-nodes';
import { hcaHealth } from '../health/hca-health';
import { sharedHcaSharing } from './dra-sharing';
import { hcaNetworkData, type HcaNetworkSysfs } from './hca-network-data';
import { matchSelectors } from './match-selectors';
import { createSharedPreferredAllocation } from '../allocate/shared-preferred-allocation';
import type { RdmaPayload } from './rdma-payload';

/** Every resource of the configuration against one inventory, with what was seen but not advertised. */
export interface ResourcePlan extends ResourceSet {
  readonly resources: readonly ResourceSpec<RdmaPayload>[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

/** What the plan needs beyond the configuration and the inventory. */
export interface PlanOptions {
  /** The machine's NUMA distance matrix, for preferred allocation. */
  readonly distances?: ReadonlyMap<number, ReadonlyMap<number, number>>;
  /** sysfs, for an exclusive HCA's network state under DRA (`hcaNetworkData`). */
  readonly sysfs?: HcaNetworkSysfs | undefined;
}

interface Matched {
  readonly hca: RdmaHca;
  readonly ports: readonly RdmaPort[];
}

const SHARED_PERMISSIONS = 'rwm'; // as k8s-rdma-shared-dev-plugin
const EXCLUSIVE_PERMISSIONS = 'rw'; // as sriov-network-device-plugin with isRdma
/** The CDI device name every ID of a shared resource maps to (they all grant the same HCAs). */
const SHARED_CDI_DEVICE = 'hcas';
/** The annotation key k8s-rdma-shared-dev-plugin returns CDI names under with `-use-cdi` (its kind `nvidia.com/net-rdma`). */
const RDMA_CDI_ANNOTATION = 'cdi.k8s.io/nvidia.com_net-rdma';

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

function planExclusive(inventory: RdmaInventory, matched: readonly Matched[]): PluginDevice<RdmaPayload>[] {
  const addressCount = new Map<string, number>();
  for (const { hca } of matched) {
    if (hca.pciAddress !== undefined)
      addressCount.set(hca.pciAddress, (addressCount.get(hca.pciAddress) ?? 0) + 1);
  }
  return matched.map((entry) => {
    const { hca } = entry;
    // The PCI address is stable across reboots (ibdev names are not); an ibdev name only where it is ambiguous.
    const id =
      hca.pciAddress !== undefined && addressCount.get(hca.pciAddress) === 1 ? hca.pciAddress : hca.name;
    const health = hcaHealth(hca, entry.ports);
    return {
      id,
      health: health.healthy ? 'Healthy' : 'Unhealthy',
      ...(health.reason !== undefined ? { problem: health.reason } : {}),
      numaNodes: hca.numaNodes,
      pciePath: hca.pciePath,
      ...(hca.pciAddress !== undefined ? { pciAddress: hca.pciAddress } : {}),
      attributes: hcaAttributes(hca, ''),
      allocation: { devices: hcaDeviceNodes(inventory, [entry], EXCLUSIVE_PERMISSIONS) },
      payload: { ibdevs: [hca.name], locality: { numaNodes: hca.numaNodes, pciePath: hca.pciePath } },
    };
  });
}

function planShared(
  inventory: RdmaInventory,
  resource: RdmaResourceConfig,
  matched: readonly Matched[],
): PluginDevice<RdmaPayload>[] {
  if (matched.length === 0) return [];
  const healths = matched.map((entry) => ({ entry, health: hcaHealth(entry.hca, entry.ports) }));
  const healthy = healths.some(({ health }) => health.healthy);
  // The shared IDs stand for all matched HCAs: a NUMA node only when they all sit on the same one.
  const nodes = new Set(matched.flatMap(({ hca }) => (hca.numaNodes.length === 1 ? hca.numaNodes : [-1])));
  const numaNodes = nodes.size === 1 && !nodes.has(-1) ? [...nodes] : [];
  const allocation = { devices: hcaDeviceNodes(inventory, matched, SHARED_PERMISSIONS) };
  const payload = { ibdevs: matched.map(({ hca }) => hca.name), locality: sharedLocality(matched) };
  const attributes: Record<string, string> = { hcas: payload.ibdevs.join(',') };
  for (const { entry, health } of healths) {
    Object.assign(attributes, hcaAttributes(entry.hca, `${entry.hca.name}.`));
    if (health.reason !== undefined) attributes[`${entry.hca.name}.unhealthy`] = health.reason;
  }
  const problem = healths.map(({ entry, health }) => `${entry.hca.name}: ${health.reason}`).join('; ');
  return Array.from({ length: resource.rdmaHcaMax ?? 0 }, (_, n) => ({
    id: String(n),
    health: healthy ? 'Healthy' : 'Unhealthy',
    ...(healthy ? {} : { problem }),
    numaNodes,
    attributes,
    allocation,
    payload,
  }));
}

/** Under DRA, a claimed exclusive HCA's netdev and hardware address go into the claim's status (KEP 4817). */
function exclusiveDraHooks(
  sysfs: HcaNetworkSysfs,
  matched: readonly Matched[],
): ResourceDraHooks<RdmaPayload> {
  return {
    networkData: (device) => {
      const hca = matched.find(({ hca: candidate }) => candidate.name === device.payload?.ibdevs[0])?.hca;
      return hca === undefined ? undefined : hcaNetworkData(sysfs, hca);
    },
  };
}

/**
 * Where a shared resource's HCAs sit together: all their NUMA nodes (none, i.e. unknown, when one HCA's node is
 * unknown) and the PCIe path they have in common.
 */
function sharedLocality(matched: readonly Matched[]): DeviceLocality {
  const known = matched.every(({ hca }) => hca.numaNodes.length > 0);
  const nodes = known ? new Set(matched.flatMap(({ hca }) => hca.numaNodes)) : new Set<number>();
  const numaNodes = [...nodes].sort((a, b) => a - b);
  const paths = matched.map(({ hca }) => hca.pciePath);
  const first = paths[0] ?? [];
  let common = 0;
  while (common < first.length && paths.every((path) => path[common] === first[common])) common++;
  return { numaNodes, pciePath: first.slice(0, common) };
}

/** Config-level warnings (deprecated or ignored keys), independent of the hardware. */
export function configWarnings(config: RdmaConfig): string[] {
  const warnings: string[] = [];
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
export function planResources(
  config: RdmaConfig,
  inventory: RdmaInventory,
  options: PlanOptions = {},
): ResourcePlan {
  const warnings: string[] = [...configWarnings(config), ...inventory.warnings];
  const claimed = new Map<string, string>();
  const sharedBy = new Map<string, string[]>();
  const reasons = new Map<string, string[]>();
  const resources: ResourceSpec<RdmaPayload>[] = [];
  const topology = options.distances === undefined ? {} : { distances: options.distances };
  const preferred = topologyPreferredAllocation<RdmaPayload>(topology);
  const sharedPreferred = createSharedPreferredAllocation<RdmaPayload>(topology);
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
    if (matched.length === 0)
      warnings.push(`${name}: no RDMA device matches its selectors; it advertises no devices`);
    resources.push(
      resource.mode === 'exclusive'
        ? {
            name,
            devices: planExclusive(inventory, matched),
            preferredAllocation: preferred,
            cdi: { annotation: RDMA_CDI_ANNOTATION },
            ...(options.sysfs !== undefined ? { dra: exclusiveDraHooks(options.sysfs, matched) } : {}),
          }
        : {
            name,
            devices: planShared(inventory, resource, matched),
            preferredAllocation: sharedPreferred,
            // Every ID stands for the same HCAs: one CDI device for all of them, not one per ID.
            cdi: { deviceName: () => SHARED_CDI_DEVICE, annotation: RDMA_CDI_ANNOTATION },
            // Under DRA, one device several claims share.
            dra: { sharing: sharedHcaSharing(resource.rdmaHcaMax ?? 0) },
          },
    );
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
