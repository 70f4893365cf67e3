import type { Logger } from '@kdp/base';
import type { ResourceSet } from '@kdp/core/plugin';
import type { Host } from '@kdp/topology';
import type { GpuConfig } from '../config';
import type { NvmlPartitions, NvmlPartitionsLoad } from '../nvml/nvml-partitions';
import { migDraHooks } from './mig-dra-hooks';

/**
 * NVML for dynamic MIG partitions, loaded at its first use (only DRA's hooks use it, so `serve --mode
 * device-plugin` never loads it); undefined where it does not load, said once.
 */
export function lazyNvmlPartitions(
  load: () => NvmlPartitionsLoad,
  logger: Logger,
): () => NvmlPartitions | undefined {
  let loaded: NvmlPartitionsLoad | undefined;
  return () => {
    if (loaded === undefined) {
      loaded = load();
      if (!loaded.ok)
        logger.error({ problem: loaded.reason }, 'dynamic MIG partitioning needs NVML; GPUs published whole');
    }
    return loaded.ok ? loaded.partitions : undefined;
  };
}

/**
 * A plan's NVIDIA resources with dynamic MIG partitioning (`--dra-dynamic-mig`, `serve --mode dra`): each resource
 * holding whole NVIDIA GPUs gets the DRA hooks that publish their MIG partitions and create them at prepare. Without
 * the flag (`partitions` undefined) the plan is as it is; so it is, with an error logged, under `nvidia.migStrategy`
 * single or mixed, where a GPU with MIG instances would turn into its MIG devices and its partitions vanish.
 */
export function withDynamicMig(
  set: ResourceSet,
  partitions: (() => NvmlPartitions | undefined) | undefined,
  ctx: {
    readonly host: Pick<Host, 'procfs'>;
    readonly config: GpuConfig;
    readonly logger: Logger;
    rescan(): void;
  },
): ResourceSet {
  if (partitions === undefined) return set;
  if (ctx.config.nvidia.migStrategy !== 'none') {
    ctx.logger.error(
      { migStrategy: ctx.config.nvidia.migStrategy },
      '--dra-dynamic-mig needs nvidia.migStrategy none; MIG partitions not published',
    );
    return set;
  }
  const dra = migDraHooks({
    nvml: partitions,
    host: ctx.host,
    config: ctx.config,
    onProblem: (uuid, problem) =>
      ctx.logger.warn({ gpu: uuid, problem }, 'MIG profiles not read; the GPU is published whole'),
    onChanged: () => ctx.rescan(),
  });
  return {
    ...set,
    resources: set.resources.map((resource) =>
      resource.devices.some(
        (device: { payload?: { gpu?: { kind?: string } } }) => device.payload?.gpu?.kind === 'nvidia',
      )
        ? { ...resource, dra: { ...resource.dra, ...dra } }
        : resource,
    ),
  };
}
