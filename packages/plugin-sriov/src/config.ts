import { z } from '@kdp/core';
import { parseVfRange } from './resources/vf-range';

const stringList = z.array(z.string());

const rangeList = z.array(z.string()).superRefine((entries, ctx) => {
  entries.forEach((entry, i) => {
    const parsed = parseVfRange(entry);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: [i], message: parsed.message });
  });
});

/** Selector keys of upstream that this plugin does not implement; a pool using one matches nothing. */
export const UNSUPPORTED_SELECTORS = ['ddpProfiles', 'pKeys', 'vdpaType', 'auxTypes'] as const;

/** One selector object of a pool (upstream `NetDeviceSelectors` / `AccelDeviceSelectors`). */
const selectorSchema = z.object({
  vendors: stringList.optional(),
  devices: stringList.optional(),
  drivers: stringList.optional(),
  pciAddresses: stringList.optional(),
  acpiIndexes: stringList.optional(),
  pfNames: rangeList.optional(),
  rootDevices: rangeList.optional(),
  linkTypes: stringList.optional(),
  isRdma: z.boolean().optional(),
  needVhostNet: z.boolean().optional(),
  // Known to upstream, not supported here: accepted so the file loads, then reported (see configWarnings).
  ddpProfiles: stringList.optional(),
  pKeys: stringList.optional(),
  vdpaType: z.string().optional(),
  auxTypes: stringList.optional(),
});

/** A selector object as parsed. */
export type SriovSelector = z.output<typeof selectorSchema>;

const resourceNamePattern = /^[a-zA-Z0-9_-]+$/;

/** One pool of `resourceList`. */
const poolSchema = z.object({
  resourceName: z
    .string()
    .regex(resourceNamePattern, 'must hold only letters, digits, "_" and "-" (as upstream requires)'),
  resourcePrefix: z.string().min(1).optional(),
  deviceType: z.enum(['netDevice', 'accelerator', 'auxNetDevice']).default('netDevice'),
  excludeTopology: z.boolean().optional(),
  // An object, or an ordered list of objects (a device matching any of them joins the pool).
  selectors: z.union([selectorSchema, z.array(selectorSchema)]).optional(),
  additionalInfo: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** kdp extension: how GetPreferredAllocation spreads a request over PFs after NUMA (default pack). */
  pfAllocation: z.enum(['pack', 'spread']).optional(),
});

/** One pool as parsed. */
export type SriovPool = z.output<typeof poolSchema>;

/** The configuration file of sriov-network-device-plugin (`/etc/pcidp/config.json`), JSON or YAML. */
export const sriovConfigSchema = z.object({
  resourceList: z.array(poolSchema).default([]),
});

/** The configuration as parsed. */
export type SriovConfig = z.output<typeof sriovConfigSchema>;

/** The default `--resource-prefix`, as upstream. */
export const DEFAULT_RESOURCE_PREFIX = 'intel.com';

/** The selector objects of a pool as a list (an object counts as a list of one; absent = one empty selector). */
export function poolSelectors(pool: SriovPool): readonly SriovSelector[] {
  if (pool.selectors === undefined) return [{}];
  return Array.isArray(pool.selectors) ? pool.selectors : [pool.selectors];
}

/** `<prefix>/<name>` of a pool. */
export function poolResourceName(pool: SriovPool, defaultPrefix: string): string {
  return `${pool.resourcePrefix ?? defaultPrefix}/${pool.resourceName}`;
}

/** What a valid configuration still deserves a warning for: unsupported selectors, device types, duplicates. */
export function configWarnings(config: SriovConfig, defaultPrefix: string): string[] {
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  config.resourceList.forEach((pool, i) => {
    const name = poolResourceName(pool, defaultPrefix);
    const first = seen.get(name);
    if (first !== undefined) {
      warnings.push(
        `resourceList[${i}]: ${name} is already defined by resourceList[${first}]; this pool is ignored`,
      );
    } else seen.set(name, i);
    if (pool.deviceType === 'auxNetDevice') {
      warnings.push(
        `resourceList[${i}].deviceType: auxNetDevice (mlx5 sub-functions) is not supported; ${name} gets no devices`,
      );
    }
    const selectors = poolSelectors(pool);
    selectors.forEach((selector, j) => {
      const where = Array.isArray(pool.selectors) ? `selectors[${j}]` : 'selectors';
      for (const key of UNSUPPORTED_SELECTORS) {
        if (selector[key] !== undefined) {
          warnings.push(
            `resourceList[${i}].${where}.${key}: not supported by sriov-device-plugin; ` +
              `this selector matches no device, so ${name} does not silently grow`,
          );
        }
      }
      if (pool.deviceType === 'accelerator') {
        for (const key of ['pfNames', 'rootDevices', 'linkTypes', 'isRdma', 'needVhostNet'] as const) {
          if (selector[key] !== undefined) {
            warnings.push(
              `resourceList[${i}].${where}.${key}: not a selector of accelerator pools (as upstream); ignored`,
            );
          }
        }
      }
    });
  });
  return warnings;
}
