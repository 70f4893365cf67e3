import { validateResourceName } from '@kdp/api';
import type { Gpu } from '../scan/gpu';
import type { GpuConfig } from '../config';

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

/** The resource a GPU is advertised under: explicit per-model name, else split by model, else the default. */
export function resourceNameOf(gpu: Gpu, config: GpuConfig): string {
  const explicit = config.modelResourceNames[gpu.model];
  if (explicit !== undefined) return explicit;
  const base = gpu.kind === 'nvidia-mig' ? config.resourceNames.nvidiaMig : config.resourceNames[gpu.kind];
  if (!config.splitByModel) return base;
  const slug = modelSlug(gpu.model) + (gpu.kind === 'nvidia-mig' ? '-mig' : '');
  const domain = base.slice(0, base.indexOf('/'));
  const name = `${domain}/${slug}`;
  return slug !== '' && validateResourceName(name).valid ? name : base;
}
