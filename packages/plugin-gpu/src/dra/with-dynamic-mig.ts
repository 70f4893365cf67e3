import type { Logger } from '@kdp/base';
import type { ResourceSet } from '@kdp/core/plugin';
import type { Host } from '@kdp/topology';
import type { GpuConfig } from '../config';
import type { NvmlPartitionsLoad } from '../nvml/nvml-partitions';
import { migDraHooks } from './mig-dra-hooks';

/**
 * A plan's NVIDIA resources with dynamic MIG partitioning (`--dra-dynamic-mig`, `serve --mode dra`): each resource
 * holding whole NVIDIA GPUs gets the DRA hooks that publish their MIG partitions and create them at prepare. Without
 * the flag (`partitions` undefined) the plan is as it is; without NVML, too, with an error logged.
 */
export function withDynamicMig(
  set: ResourceSet,
  partitions: NvmlPartitionsLoad | undefined,
  ctx: { readonly host: Pick<Host, 'procfs'>; readonly config: GpuConfig; readonly logger: Logger },
): ResourceSet {
  if (partitions === undefined) return set;
  if (!partitions.ok) {
    ctx.logger.error(
      { problem: partitions.reason },
      'dynamic MIG partitioning needs NVML; GPUs published whole',
    );
    return set;
  }
  const dra = migDraHooks({
    nvml: partitions.partitions,
    host: ctx.host,
    config: ctx.config,
    onProblem: (uuid, problem) =>
      ctx.logger.warn({ gpu: uuid, problem }, 'MIG profiles not read; the GPU is published whole'),
  });
  return {
    ...set,
    resources: set.resources.map((resource) =>
      resource.devices.some(
        (device: { payload?: { gpu?: { kind?: string } } }) => device.payload?.gpu?.kind === 'nvidia',
      )
        ? { ...resource, dra }
        : resource,
    ),
  };
}
