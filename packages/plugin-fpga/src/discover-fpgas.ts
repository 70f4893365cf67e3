import type { DiscoverResult } from '@kdp/core';
import { buildInventory } from './build-inventory';
import type { FpgaConfig } from './fpga-config';
import { scanFpgas, type ScanFpgasOptions } from './scan-fpgas';

/** One scan as the `discover` command prints it (resources, devices with their nodes, excluded, warnings). */
export async function discoverFpgas(
  options: ScanFpgasOptions & { readonly config: FpgaConfig },
): Promise<DiscoverResult> {
  const inventory = buildInventory(await scanFpgas(options), options.config);
  return {
    resources: inventory.resources.map((resource) => ({
      resourceName: resource.name,
      devices: resource.devices.map((device) => ({
        id: device.id,
        health: device.health,
        numaNodes: device.numaNodes ?? [],
        pciAddress: device.payload?.pciAddress ?? null,
        deviceSpecs: (device.payload?.nodes ?? []).map((n) => ({
          containerPath: n.containerPath,
          hostPath: n.hostPath,
          permissions: n.permissions ?? 'rw',
        })),
        attributes: {
          ...device.payload?.attributes,
          ...(resource.programming ? { programmedAfuId: resource.programming.afuId } : {}),
          ...(device.payload && device.payload.problems.length > 0
            ? { problems: device.payload.problems.join('; ') }
            : {}),
        },
      })),
    })),
    excluded: inventory.excluded,
    warnings: inventory.warnings,
  };
}
