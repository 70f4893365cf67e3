/** A device node the plugin would hand to the kubelet (host paths, never the `--dev-root` prefix). */
export interface DiscoveredDeviceSpec {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly permissions: string;
}

/** One advertised device as `discover` prints it. */
export interface DiscoveredDevice {
  readonly id: string;
  /** Exactly `Healthy` or `Unhealthy`. */
  readonly health: 'Healthy' | 'Unhealthy';
  /** NUMA nodes; empty where the topology is unknown. */
  readonly numaNodes?: readonly number[];
  /** PCI address (`0000:3b:00.0`); null or absent for devices that are not PCI functions. */
  readonly pciAddress?: string | null;
  readonly deviceSpecs?: readonly DiscoveredDeviceSpec[];
  /** Bind mounts a container holding this device alone receives. */
  readonly mounts?: readonly DiscoveredMount[];
  /** Environment variables a container holding this device alone receives. */
  readonly envs?: Readonly<Record<string, string>>;
  /** Free-form facts (vendor, model, driver, …). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** A bind mount the plugin would hand to the kubelet. */
export interface DiscoveredMount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readOnly: boolean;
}

/** One resource and its devices. */
export interface DiscoveredResource {
  readonly resourceName: string;
  readonly devices: readonly DiscoveredDevice[];
}

/** A candidate device that was seen but not advertised, and why. */
export interface ExcludedDevice {
  readonly path: string;
  readonly reason: string;
}

/** What a plugin's discover function returns; printed as the contract's JSON document or as a table. */
export interface DiscoverResult {
  readonly resources: readonly DiscoveredResource[];
  readonly excluded?: readonly ExcludedDevice[];
  readonly warnings?: readonly string[];
}

/** The JSON document of the plugin contract: every field present, in the contract's order. */
export interface DiscoverDocument {
  resources: Array<{
    resourceName: string;
    devices: Array<{
      id: string;
      health: 'Healthy' | 'Unhealthy';
      numaNodes: number[];
      pciAddress: string | null;
      deviceSpecs: DiscoveredDeviceSpec[];
      mounts: DiscoveredMount[];
      envs: Record<string, string>;
      attributes: Record<string, string>;
    }>;
  }>;
  excluded: ExcludedDevice[];
  warnings: string[];
}

/**
 * Normalizes a discover result into the contract's document (defaults filled, keys in order, extra keys
 * dropped). Throws when a device's health is not exactly `Healthy` or `Unhealthy`: that is a plugin bug.
 */
export function toDiscoverDocument(
  result: DiscoverResult,
  extraWarnings: readonly string[] = [],
): DiscoverDocument {
  return {
    resources: result.resources.map((resource) => ({
      resourceName: resource.resourceName,
      devices: resource.devices.map((device) => {
        if (device.health !== 'Healthy' && device.health !== 'Unhealthy') {
          throw new Error(
            `device ${device.id} of ${resource.resourceName}: health ${JSON.stringify(device.health)} is neither Healthy nor Unhealthy`,
          );
        }
        return {
          id: device.id,
          health: device.health,
          numaNodes: [...(device.numaNodes ?? [])],
          pciAddress: device.pciAddress ?? null,
          deviceSpecs: (device.deviceSpecs ?? []).map((s) => ({
            containerPath: s.containerPath,
            hostPath: s.hostPath,
            permissions: s.permissions,
          })),
          mounts: (device.mounts ?? []).map((m) => ({
            containerPath: m.containerPath,
            hostPath: m.hostPath,
            readOnly: m.readOnly,
          })),
          envs: { ...device.envs },
          attributes: { ...device.attributes },
        };
      }),
    })),
    excluded: (result.excluded ?? []).map((e) => ({ path: e.path, reason: e.reason })),
    warnings: [...extraWarnings, ...(result.warnings ?? [])],
  };
}
