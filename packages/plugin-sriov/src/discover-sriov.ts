import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoveredDevice, DiscoverResult } from '@kdp/core';
import { assignPools } from './assign-pools';
import { createScanReaders, scanNode } from './scan-node';
import { deviceContribution } from './sriov-allocation';
import { configWarnings, type SriovConfig } from './sriov-config';

/** Inputs of {@link discoverSriov}. */
export interface DiscoverSriovOptions {
  readonly sysfsRoot: string;
  readonly procRoot: string;
  readonly devRoot: string;
  readonly defaultPrefix: string;
  readonly config: SriovConfig;
}

/**
 * One scan as `discover` prints it: every pool with its devices (device nodes as Allocate would return them
 * for that device alone), every candidate function not advertised with the reason per pool, and warnings.
 */
export async function discoverSriov(options: DiscoverSriovOptions): Promise<DiscoverResult> {
  const scan = await scanNode(createScanReaders(options.sysfsRoot, options.procRoot));
  const assignment = assignPools(scan, options.config, { defaultPrefix: options.defaultPrefix });
  const host = {
    rdmaCharDevices: scan.rdmaCharDevices,
    vhostNet: existsSync(join(options.devRoot, 'vhost-net')) && existsSync(join(options.devRoot, 'net/tun')),
  };
  const warnings = [...configWarnings(options.config, options.defaultPrefix), ...scan.warnings];
  const resources = assignment.pools
    .filter(({ pool }) => pool.deviceType !== 'auxNetDevice')
    .map(({ resourceName, pool, members }) => {
      if (members.length === 0) warnings.push(`${resourceName}: no device matches the pool's selectors`);
      return {
        resourceName,
        devices: members.map((member): DiscoveredDevice => {
          const { fn } = member;
          const contribution = deviceContribution(member, pool, host);
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
          put('problem', member.problem);
          return {
            id: fn.address,
            health: member.healthy ? 'Healthy' : 'Unhealthy',
            numaNodes: pool.excludeTopology === true || fn.numaNode === undefined ? [] : [fn.numaNode],
            pciAddress: fn.address,
            deviceSpecs: contribution.devices.map((d) => ({
              containerPath: d.containerPath,
              hostPath: d.hostPath,
              permissions: d.permissions ?? 'rw',
            })),
            attributes,
          };
        }),
      };
    });
  return { resources, excluded: assignment.excluded, warnings };
}
