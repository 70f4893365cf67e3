import { validateResourceName } from '@kdp/api';
import type { Gpu } from '../scan/gpu';
import type { GpuConfig } from '../config';
import { amdMixedResourceName } from './amd-resource-names';

const VENDOR_WORDS = /^(nvidia|amd|intel)[\s-]+/i;

/** A product name as a resource-name suffix: "NVIDIA H100 80GB HBM3" → "h100-80gb-hbm3". */
export function modelSlug(model: string): string {
  return model
    .replace(VENDOR_WORDS, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
}

/**
 * A MIG device's resource under `nvidia.migStrategy: mixed`, as NVIDIA names it: `nvidia.com/mig-<profile>`, `+`
 * written `.` (`nvidia.com/mig-1g.10gb`, `nvidia.com/mig-1c.3g.40gb`, `nvidia.com/mig-1g.10gb.me`).
 */
function nvidiaMixedResourceName(gpu: Gpu, config: GpuConfig): string | undefined {
  const profile = gpu.mig?.profile;
  if (config.nvidia.migStrategy !== 'mixed' || profile === undefined) return undefined;
  return `nvidia.com/mig-${profile.replaceAll('+', '.')}`;
}

/**
 * The resource a GPU is advertised under: NVIDIA's `mig-<profile>` with `nvidia.migStrategy: mixed`, AMD's
 * partition-mode name with `amd.resourceNamingStrategy: mixed`, else explicit per-model name, else split by model,
 * else the default.
 */
export function resourceNameOf(gpu: Gpu, config: GpuConfig): string {
  const mixed = amdMixedResourceName(gpu, config) ?? nvidiaMixedResourceName(gpu, config);
  if (mixed !== undefined) return mixed;
  const explicit = config.modelResourceNames[gpu.model];
  if (explicit !== undefined) return explicit;
  const base = gpu.kind === 'nvidia-mig' ? config.resourceNames.nvidiaMig : config.resourceNames[gpu.kind];
  if (!config.splitByModel) return base;
  const slug = modelSlug(gpu.model) + (gpu.kind === 'nvidia-mig' ? '-mig' : '');
  const domain = base.slice(0, base.indexOf('/'));
  const name = `${domain}/${slug}`;
  return slug !== '' && validateResourceName(name).valid ? name : base;
}
