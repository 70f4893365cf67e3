import { createKubeClient, type DeviceNetworkData, type KubeApiAccess } from '@kdp/core';
import type { ResourceApiDiscovery } from './resource-api-discovery';
import type { ResourceClaim } from './resource-claim';

/** One allocated device's state as the driver reports it in the claim's `status.devices[]` (KEP 4817). */
export interface ClaimDeviceStatus {
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly shareID?: string | undefined;
  readonly networkData?: DeviceNetworkData | undefined;
}

/** Writes the driver's entries of a claim's `status.devices`. */
export interface ClaimStatusWriter {
  /** Applies `devices` as this driver's entries (each with a `Ready` condition); none: nothing is sent. */
  write(claim: ResourceClaim, devices: readonly ClaimDeviceStatus[]): Promise<void>;
}

/** Options of {@link createKubeClaimStatusWriter}. */
export interface KubeClaimStatusWriterOptions {
  readonly access: KubeApiAccess;
  /** The `resource.k8s.io` version, shared with the claim reader. */
  readonly discovery: ResourceApiDiscovery;
  /** The driver name: the field manager of its entries. */
  readonly driverName: string;
  /** The time of the conditions' `lastTransitionTime`. */
  readonly now: () => number;
}

/** The `networkData` of an entry, without empty fields (the API refuses an empty interface name). */
function networkDataOf(data: DeviceNetworkData): Record<string, unknown> | undefined {
  const out = {
    ...(data.interfaceName ? { interfaceName: data.interfaceName } : {}),
    ...(data.ips !== undefined && data.ips.length > 0 ? { ips: [...data.ips] } : {}),
    ...(data.hardwareAddress ? { hardwareAddress: data.hardwareAddress } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A {@link ClaimStatusWriter} that server-side applies `status.devices` through the `resourceclaims/status`
 * subresource with the driver as field manager (`force`), as upstream drivers do (`ApplyStatus`): the API server
 * merges the list by driver, pool, device and share, so other drivers' entries stay. Each entry carries a
 * `Ready` condition (`reason: Prepared`) and, for a network device, its `networkData`.
 */
export function createKubeClaimStatusWriter(options: KubeClaimStatusWriterOptions): ClaimStatusWriter {
  const client = createKubeClient({ access: options.access });
  return {
    async write(claim, devices) {
      if (devices.length === 0) return;
      const version = await options.discovery.version();
      const { name, namespace } = claim.metadata;
      const lastTransitionTime = new Date(options.now()).toISOString().replace(/\.\d+Z$/, 'Z');
      const body = {
        apiVersion: `resource.k8s.io/${version}`,
        kind: 'ResourceClaim',
        metadata: { name, namespace },
        status: {
          devices: devices.map((device) => {
            const networkData = device.networkData && networkDataOf(device.networkData);
            return {
              driver: device.driver,
              pool: device.pool,
              device: device.device,
              ...(device.shareID !== undefined ? { shareID: device.shareID } : {}),
              conditions: [
                {
                  type: 'Ready',
                  status: 'True',
                  reason: 'Prepared',
                  message: `prepared by ${options.driverName}`,
                  lastTransitionTime,
                },
              ],
              ...(networkData !== undefined ? { networkData } : {}),
            };
          }),
        },
      };
      const path =
        `/apis/resource.k8s.io/${version}/namespaces/${encodeURIComponent(namespace)}/resourceclaims/` +
        `${encodeURIComponent(name)}/status?fieldManager=${encodeURIComponent(options.driverName)}&force=true`;
      await client.patch(path, body, 'application/apply-patch+yaml');
    },
  };
}
