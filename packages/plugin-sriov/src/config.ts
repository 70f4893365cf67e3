import { z } from '@kdp/core';
import { parseVfRange } from './resources/vf-range';

const stringList = z.array(z.string());

const rangeList = z.array(z.string()).superRefine((entries, ctx) => {
  entries.forEach((entry, i) => {
    const parsed = parseVfRange(entry);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: [i], message: parsed.message });
  });
});

/** A key of upstream that this plugin refuses: present in a file, it stops the load (exit 2) saying why. */
const refusedKey = (message: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined) ctx.addIssue({ code: 'custom', message });
    });

/** Upstream's keys that kdp refuses, with what to do instead (see the README's "Drop-in" section). */
export const REFUSED_KEYS = {
  ddpProfiles:
    "not supported: the loaded DDP package is read through devlink (netlink) or Intel's ddptool, which " +
    'sriov-device-plugin does not use; select the VFs of the PFs that run the package with pfNames or rootDevices',
  vdpaType:
    'not supported: sriov-device-plugin does not hand out vDPA devices (vhost-vdpa/virtio-vdpa); ' +
    'use sriov-network-device-plugin for vDPA pools',
  auxTypes:
    'not supported: auxiliary network devices (mlx5 sub-functions) are not offered by sriov-device-plugin',
  auxNetDevice:
    'not supported: auxiliary network devices (mlx5 sub-functions) are not offered by sriov-device-plugin; ' +
    'use netDevice (VFs) or accelerator',
} as const;

/** An InfiniBand partition key as upstream's `pKeys` lists it: `0x7fff`, `0x1`, `ABCD` (hex, 16 bits). */
const pKeyPattern = /^(0x)?[0-9a-f]{1,4}$/i;

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
  /** The default (index 0) partition key of the function's RDMA device, port 1 (InfiniBand only). */
  pKeys: z
    .array(z.string().regex(pKeyPattern, 'must be a 16-bit hex partition key such as 0x7fff'))
    .optional(),
  ddpProfiles: refusedKey(REFUSED_KEYS.ddpProfiles),
  vdpaType: refusedKey(REFUSED_KEYS.vdpaType),
  auxTypes: refusedKey(REFUSED_KEYS.auxTypes),
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
  deviceType: z
    .string()
    .default('netDevice')
    .superRefine((value, ctx) => {
      if (value === 'auxNetDevice') ctx.addIssue({ code: 'custom', message: REFUSED_KEYS.auxNetDevice });
      else if (value !== 'netDevice' && value !== 'accelerator')
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} is not netDevice or accelerator` });
    })
    .transform((value) => value as 'netDevice' | 'accelerator'),
  excludeTopology: z.boolean().optional(),
  // An object, or an ordered list of objects (a device matching any of them joins the pool).
  selectors: z.union([selectorSchema, z.array(selectorSchema)]).optional(),
  additionalInfo: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** kdp extension: how GetPreferredAllocation spreads a request over PFs after NUMA (default pack). */
  pfAllocation: z.enum(['pack', 'spread']).optional(),
});

/** One pool as parsed. */
export type SriovPool = z.output<typeof poolSchema>;

/**
 * The configuration file of sriov-network-device-plugin (`/etc/pcidp/config.json`), JSON or YAML. Two pools of
 * one name (the same resourceName and resourcePrefix) stop the load, as upstream exits with
 * `resource name "…" already exists`.
 */
export const sriovConfigSchema = z
  .object({
    resourceList: z.array(poolSchema).default([]),
  })
  .superRefine((config, ctx) => {
    const seen = new Map<string, number>();
    config.resourceList.forEach((pool, i) => {
      const name = `${pool.resourcePrefix ?? '<--resource-prefix>'}/${pool.resourceName}`;
      const first = seen.get(name);
      if (first === undefined) seen.set(name, i);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['resourceList', i, 'resourceName'],
          message: `resource name "${name}" already exists (resourceList[${first}]); upstream exits too`,
        });
    });
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

/**
 * What a valid configuration still deserves a warning for: pools that become one only through
 * `--resource-prefix` (one names the prefix, the other takes the flag's), net selectors in accelerator pools.
 */
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
    const selectors = poolSelectors(pool);
    selectors.forEach((selector, j) => {
      const where = Array.isArray(pool.selectors) ? `selectors[${j}]` : 'selectors';
      if (pool.deviceType === 'accelerator') {
        for (const key of [
          'pfNames',
          'rootDevices',
          'linkTypes',
          'isRdma',
          'needVhostNet',
          'pKeys',
        ] as const) {
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
