import { validateResourceName } from '@kdp/api';
import type { GpuConfig } from '../config';
import type { Gpu } from '../scan/gpu';

/**
 * The resource of an AMD GPU or compute partition under `amd.resourceNamingStrategy: mixed`, as ROCm's plugin
 * names it: `<compute>_<memory>` in lower case under the AMD resource's domain (`amd.com/cpx_nps4`,
 * `amd.com/spx_nps1`). Undefined with `single`, for other vendors and where either mode is unknown (a GPU that
 * cannot be partitioned, or an unreadable mode file): those keep the AMD GPU resource (`amd.com/gpu`).
 */
export function amdMixedResourceName(gpu: Gpu, config: GpuConfig): string | undefined {
  if (gpu.kind !== 'amd' || config.amd.resourceNamingStrategy !== 'mixed') return undefined;
  const { compute, memory } = gpu.partitionModes ?? {};
  if (compute === undefined || memory === undefined) return undefined;
  const base = config.resourceNames.amd;
  const name = `${base.slice(0, base.indexOf('/'))}/${compute}_${memory}`.toLowerCase();
  return validateResourceName(name).valid ? name : undefined;
}
