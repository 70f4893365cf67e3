import { vfClaimConfig } from '../dra/vf-claim-config';
import type { LifecycleLogger, PluginDevice, ResourceDraHooks } from '@kdp/core';
import type { ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import { containerAllocation, rdmaDevicesOf } from '../allocate/container-allocation';
import { pciDeviceInfo } from '../allocate/device-info';
import type { DeviceInfoStore } from '../allocate/device-info-store';
import { preferVfs } from '../allocate/prefer-vfs';
import { configWarnings, type SriovConfig, type SriovPool } from '../config';
import type { NodeScan } from '../scan/nic-function';
import type { Assignment, PooledFunction } from './assign-pools';
import { readNetworkData, type NetworkDataSysfs } from './read-network-data';

/** One scan as `resources` gets it: the node as read, and its functions placed into the pools. */
export interface SriovScan {
  readonly node: NodeScan;
  readonly assignment: Assignment;
}

/** What the pools' hooks need beyond the scan. */
export interface PoolResourceOptions {
  /** `--resource-prefix`. */
  readonly defaultPrefix: string;
  /** Whether /dev/vhost-net and /dev/net/tun are device nodes now (asked at every Allocate). */
  readonly vhostNet: () => Promise<boolean>;
  /** Where Allocate leaves the Multus device-info files. */
  readonly store: DeviceInfoStore;
  readonly logger: LifecycleLogger;
  /** Reads sysfs for a claimed function's network state under DRA (`readNetworkData`). */
  readonly sysfs?: NetworkDataSysfs | undefined;
}

/** The kubelet device of one pool member: ID = PCI address, NUMA node unless the pool sets excludeTopology. */
export function toPluginDevice(pool: SriovPool, member: PooledFunction): PluginDevice<PooledFunction> {
  const { fn } = member;
  const attributes: Record<string, string> = {};
  const put = (key: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') attributes[key] = String(value);
  };
  put('vendor', fn.vendor);
  put('device', fn.device);
  put('driver', fn.driver);
  put('pfName', fn.pfName);
  put('pfAddress', fn.vf?.pfAddress);
  put('vfIndex', fn.vf?.index);
  put('netdev', fn.netdevs.join(','));
  put('linkType', fn.linkType);
  put('iommuGroup', fn.iommuGroup);
  put('rdmaDevices', fn.rdmaDevices.join(','));
  return {
    id: fn.address,
    health: member.healthy ? 'Healthy' : 'Unhealthy',
    ...(member.problem !== undefined ? { problem: member.problem } : {}),
    numaNodes: pool.excludeTopology === true || fn.numaNode === undefined ? [] : [fn.numaNode],
    pciePath: fn.pciePath,
    pciAddress: fn.address,
    attributes,
    payload: member,
  };
}

/**
 * One resource per pool of the configuration with devices (an empty pool is skipped, as upstream skips it):
 * Allocate answers as upstream does, writes
 * each device's device-info file, and GetPreferredAllocation (every pool) keeps a request on the fewest NUMA
 * nodes and the closest PCIe paths, packed onto (or spread over) PFs as the pool's `pfAllocation` says.
 */
export function poolResources(
  scan: SriovScan,
  config: SriovConfig,
  options: PoolResourceOptions,
): ResourceSet {
  const { node, assignment } = scan;
  const warnings = [...configWarnings(config, options.defaultPrefix), ...node.warnings];
  const resources: ResourceSpec<PooledFunction>[] = [];
  for (const { resourceName, pool, members } of assignment.pools) {
    if (members.length === 0) {
      // Upstream creates no resource server for an empty pool; a device appearing later registers it here.
      warnings.push(`${resourceName}: no device matches the pool's selectors; not registered (as upstream)`);
      continue;
    }
    const membersOf = (devices: readonly PluginDevice<PooledFunction>[]): PooledFunction[] =>
      devices.flatMap((device) => (device.payload !== undefined ? [device.payload] : []));
    resources.push({
      name: resourceName,
      devices: members.map((member) => toPluginDevice(pool, member)),
      cdi: { annotation: cdiAnnotation(pool, options.defaultPrefix) },
      // Under DRA: a claim's VfConfig (the driver it needs) is checked against the VF, and the VF's netdev and MAC
      // are reported in the claim's status (KEP 4817).
      dra: {
        config: vfClaimConfig(resourceName),
        ...(options.sysfs !== undefined ? draHooks(options.sysfs) : {}),
      },
      allocate: async ({ devices }) =>
        containerAllocation(resourceName, membersOf(devices), pool, {
          rdmaCharDevices: node.rdmaCharDevices,
          vhostNet: await options.vhostNet(),
        }),
      afterAllocate: async ({ devices }) => {
        const ids: string[] = [];
        for (const member of membersOf(devices)) {
          const { address } = member.fn;
          await options.store.write(
            resourceName,
            address,
            pciDeviceInfo(address, rdmaDevicesOf(member, pool)),
          );
          ids.push(address);
        }
        options.logger.info({ resource: resourceName, devices: ids }, 'allocated');
      },
      preferredAllocation: ({ available, mustInclude, size }) =>
        preferVfs({
          available: available.map(({ id, numaNodes, pciePath, payload }) => ({
            id,
            ...(numaNodes?.[0] !== undefined ? { numaNode: numaNodes[0] } : {}),
            pciePath: pciePath ?? [],
            pf: payload?.fn.vf?.pfAddress ?? id,
            index: payload?.fn.vf?.index ?? 0,
          })),
          mustInclude,
          size,
          policy: pool.pfAllocation ?? 'pack',
        }),
    });
  }
  return { resources, excluded: assignment.excluded, warnings };
}

/** Under DRA, a claimed VF's netdev and MAC go into the claim's status (KEP 4817) and device metadata. */
function draHooks(sysfs: NetworkDataSysfs): ResourceDraHooks<PooledFunction> {
  return {
    networkData: (device) =>
      device.payload === undefined ? undefined : readNetworkData(sysfs, device.payload.fn),
  };
}

/**
 * The annotation key upstream returns CDI names under with `--use-cdi` (`cdi.k8s.io/<prefix>_<kind>`: kind
 * `net-pci` for netDevice pools, `net-accel` for accelerator pools), for runtimes that read no CDI field.
 */
export function cdiAnnotation(pool: SriovPool, defaultPrefix: string): string {
  const kind = pool.deviceType === 'accelerator' ? 'net-accel' : 'net-pci';
  return `cdi.k8s.io/${pool.resourcePrefix ?? defaultPrefix}_${kind}`;
}
