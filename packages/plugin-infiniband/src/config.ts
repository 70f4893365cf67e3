import { validateResourceName } from '@kdp/api';
import { z } from '@kdp/core';

const list = z.array(z.string().min(1).max(256)).max(1024).default([]);

/** The selectors of k8s-rdma-shared-dev-plugin: AND across keys, OR within a list, empty = any. */
const selectorsSchema = z
  .object({
    /** PCI vendor IDs, hex without 0x (`15b3`). */
    vendors: list,
    /** PCI device IDs, hex without 0x (`1017`). */
    deviceIDs: list,
    /** PCI drivers (`mlx5_core`). */
    drivers: list,
    /** Network interfaces of the function (`ib0`, `ens1f0`). */
    ifNames: list,
    /** Port link layers: `infiniband`, `ether` (RoCE). */
    linkTypes: z
      .array(
        z
          .string()
          .transform((value) => value.toLowerCase())
          .pipe(z.enum(['infiniband', 'ib', 'ether', 'ethernet', 'eth', 'roce'])),
      )
      .max(8)
      .default([]),
  })
  .default({ vendors: [], deviceIDs: [], drivers: [], ifNames: [], linkTypes: [] });

const resourceSchema = z.object({
  resourceName: z
    .string()
    .regex(
      /^[a-zA-Z0-9_]+$/,
      'must hold only letters, digits and underscores (as k8s-rdma-shared-dev-plugin)',
    ),
  resourcePrefix: z.string().min(1).default('rdma'),
  /** Shared mode: how many pods (IDs) may share the matched HCAs. */
  rdmaHcaMax: z.number().int().min(0).max(100_000).optional(),
  /** Deprecated upstream spelling of `selectors.ifNames`. */
  devices: z.array(z.string().min(1)).max(1024).optional(),
  selectors: selectorsSchema,
  /** kdp extension: `shared` (default, as upstream) or `exclusive` (one device per HCA). */
  mode: z.enum(['shared', 'exclusive']).default('shared'),
});

/** Schema of `--config`: the k8s-rdma-shared-dev-plugin file (JSON or YAML) plus kdp's `mode`. */
export const rdmaConfigSchema = z
  .object({
    /** Upstream's rediscovery period in seconds: a full rescan that often besides the change probe (absent 60, 0 none). */
    periodicUpdateInterval: z.number().int().min(0).optional(),
    configList: z
      .array(resourceSchema)
      .max(64)
      .default(() => DEFAULT_CONFIG_LIST.map((r) => structuredClone(r))),
  })
  .superRefine((config, ctx) => {
    const seen = new Map<string, number>();
    config.configList.forEach((resource, index) => {
      const name = `${resource.resourcePrefix}/${resource.resourceName}`;
      const check = validateResourceName(name);
      if (!check.valid) {
        ctx.addIssue({
          code: 'custom',
          path: ['configList', index, 'resourcePrefix'],
          message: `${check.message}: ${check.reason}`,
        });
      }
      const before = seen.get(name);
      if (before !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['configList', index, 'resourceName'],
          message: `${name} is already defined by configList[${before}]`,
        });
      }
      seen.set(name, index);
      if (resource.mode === 'shared' && resource.rdmaHcaMax === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['configList', index, 'rdmaHcaMax'],
          message: 'required in shared mode (how many containers may share the HCAs)',
        });
      }
    });
  });

/** The parsed configuration. */
export type RdmaConfig = z.output<typeof rdmaConfigSchema>;
/** One resource of the configuration. */
export type RdmaResourceConfig = RdmaConfig['configList'][number];
/** The selectors of one resource. */
export type RdmaSelectors = RdmaResourceConfig['selectors'];

/** Without `--config`: one exclusive resource, `rdma/hca`, one device per RDMA device found. */
export const DEFAULT_CONFIG_LIST: readonly z.output<typeof resourceSchema>[] = [
  {
    resourceName: 'hca',
    resourcePrefix: 'rdma',
    mode: 'exclusive',
    selectors: { vendors: [], deviceIDs: [], drivers: [], ifNames: [], linkTypes: [] },
  },
];

/** The full resource name, `<resourcePrefix>/<resourceName>`. */
export function resourceNameOf(resource: RdmaResourceConfig): string {
  return `${resource.resourcePrefix}/${resource.resourceName}`;
}
