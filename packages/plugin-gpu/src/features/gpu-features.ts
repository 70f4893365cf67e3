import type { PluginContext, ResourceSet } from '@kdp/core/plugin';
import { toLabelValue, type FeatureLabels } from '@kdp/core/plugin';
import type { Sysfs } from '@kdp/topology';
import type { GpuConfig } from '../config';
import type { GpuPayload } from '../resources/gpu-payload';
import type { Gpu } from '../scan/gpu';

/** What the labels need beyond the scan, read from sysfs per PCI address. */
export interface GpuFeatureFacts {
  /** `mem_info_vram_total` in bytes (amdgpu). */
  readonly vramBytes: ReadonlyMap<string, number>;
  /** The PCI class and subclass, 4 hex digits (`0300`). */
  readonly pciClass: ReadonlyMap<string, string>;
}

/** One advertised GPU (or MIG device, or partition) with its resource and time-slicing replica count. */
interface Advertised {
  readonly gpu: Gpu;
  readonly resource: string;
  readonly replicas: number;
}

/** The GPUs of a set, once each (replicas folded into their count). */
function advertisedGpus(set: ResourceSet): Advertised[] {
  const out = new Map<string, { gpu: Gpu; resource: string; replicas: number }>();
  for (const spec of set.resources) {
    for (const device of spec.devices) {
      const payload = device.payload as GpuPayload | undefined;
      if (payload?.gpu === undefined) continue;
      const key = `${spec.name}\n${payload.gpu.id}`;
      const entry = out.get(key) ?? { gpu: payload.gpu, resource: spec.name, replicas: 0 };
      entry.replicas += 1;
      out.set(key, entry);
    }
  }
  return [...out.values()];
}

/** Distinct values of one fact per physical GPU (PCI address), in address order. */
function perGpu(gpus: readonly Advertised[], fact: (gpu: Gpu) => string | undefined): string[] {
  const byAddress = new Map<string, string | undefined>();
  for (const { gpu } of gpus) if (!byAddress.has(gpu.pciAddress)) byAddress.set(gpu.pciAddress, fact(gpu));
  return [...byAddress.keys()].sort().flatMap((address) => {
    const value = byAddress.get(address);
    return value === undefined || value === '' ? [] : [value];
  });
}

/** The value most GPUs have (the first in order on a tie). */
function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: string | undefined;
  for (const [value, count] of counts)
    if (best === undefined || count > (counts.get(best) ?? 0)) best = value;
  return best;
}

/**
 * ROCm's node labeller's form: `<name>=<value>` when every GPU has the same value, else `<name>.<value>=<count>`
 * (`amd.com/gpu.device-id=74a1`, `amd.com/gpu.device-id.74a1=4`).
 */
function amdLabels(name: string, values: readonly string[]): Record<string, string> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  if (counts.size === 1) return { [name]: values[0] ?? '' };
  return Object.fromEntries([...counts].map(([value, count]) => [`${name}.${value}`, String(count)]));
}

const hexId = (id: string | undefined): string | undefined =>
  id === undefined ? undefined : id.replace(/^0x/i, '').toLowerCase();

/**
 * NVIDIA labels as GPU Feature Discovery names them: `nvidia.com/gpu.count`, `.product` (`-MIG` under the single
 * MIG strategy, `-SHARED` when time-sliced and not renamed), `.replicas`, `.sharing-strategy`, `nvidia.com/mig.strategy`,
 * `nvidia.com/mig.capable` (only `true`: telling "not capable" needs NVML) and, per `nvidia.com/mig-<profile>`
 * resource, its `.count` and `.product`. Memory and family need NVML and are not labelled.
 */
function nvidiaLabels(gpus: readonly Advertised[], config: GpuConfig): Record<string, string> {
  const nvidia = gpus.filter(({ gpu }) => gpu.kind === 'nvidia' || gpu.kind === 'nvidia-mig');
  if (nvidia.length === 0) return {};
  const labels: Record<string, string> = {};
  const model = mostCommon(perGpu(nvidia, (gpu) => gpu.model)) ?? '';
  const product = (...parts: string[]): string => toLabelValue([model, ...parts].join(' '));
  const strategy = config.nvidia.migStrategy;
  const mixed = nvidia.filter(({ resource }) => resource.startsWith('nvidia.com/mig-'));
  const whole = nvidia.filter(({ gpu }) => gpu.kind === 'nvidia');
  const migSingle = nvidia.filter(
    ({ gpu, resource }) => gpu.kind === 'nvidia-mig' && !resource.startsWith('nvidia.com/mig-'),
  );
  const replicas = Math.max(1, ...whole.map((entry) => entry.replicas));
  const renamed = whole.some(({ resource }) => resource !== config.resourceNames.nvidia);
  // Single MIG strategy: `nvidia.com/gpu` holds MIG devices (and whole GPUs without MIG), and so does the count.
  const single = strategy === 'single' && migSingle.length > 0;
  labels['nvidia.com/gpu.count'] = String(
    single ? migSingle.length + whole.length : perGpu(nvidia, (gpu) => gpu.pciAddress).length,
  );
  labels['nvidia.com/gpu.product'] =
    single && whole.length === 0 ? product('MIG') : replicas > 1 && !renamed ? product('SHARED') : product();
  labels['nvidia.com/gpu.replicas'] = String(replicas);
  labels['nvidia.com/gpu.sharing-strategy'] = replicas > 1 ? 'time-slicing' : 'none';
  if (strategy !== 'none') labels['nvidia.com/mig.strategy'] = strategy;
  if (nvidia.some(({ gpu }) => gpu.kind === 'nvidia-mig')) labels['nvidia.com/mig.capable'] = 'true';
  for (const resource of new Set(mixed.map((entry) => entry.resource))) {
    const profile = resource.slice('nvidia.com/mig-'.length);
    labels[`${resource}.count`] = String(mixed.filter((entry) => entry.resource === resource).length);
    const parents = mostCommon(
      perGpu(
        mixed.filter((entry) => entry.resource === resource),
        (gpu) => gpu.model,
      ),
    );
    labels[`${resource}.product`] = toLabelValue(`${parents ?? model} MIG ${profile}`);
  }
  return labels;
}

/**
 * AMD labels as ROCm's node labeller names them, per physical GPU: `amd.com/gpu.device-id`, `.product-name`,
 * `.vram` (`192G`), `amd.com/compute-memory-partition` (`cpx_nps4`, when every GPU is in the same modes), and
 * `amd.com/compute-partitioning-supported` / `memory-partitioning-supported`. The family needs libdrm: not labelled.
 */
function amdGpuLabels(gpus: readonly Advertised[], facts: GpuFeatureFacts): Record<string, string> {
  const amd = gpus.filter(({ gpu }) => gpu.kind === 'amd');
  if (amd.length === 0) return {};
  const productName = (gpu: Gpu): string | undefined =>
    gpu.model.startsWith('AMD GPU ')
      ? undefined // no product_name in sysfs: our placeholder is no product name
      : toLabelValue(gpu.model.replace(/[()]/g, ''), '_');
  const vram = (gpu: Gpu): string | undefined => {
    const bytes = facts.vramBytes.get(gpu.pciAddress);
    return bytes === undefined ? undefined : `${Math.round(bytes / 2 ** 30)}G`;
  };
  const modes = perGpu(amd, (gpu) =>
    gpu.partitionModes?.compute !== undefined && gpu.partitionModes.memory !== undefined
      ? `${gpu.partitionModes.compute}_${gpu.partitionModes.memory}`.toLowerCase()
      : undefined,
  );
  const first = amd.map(({ gpu }) => gpu).sort((a, b) => (a.pciAddress < b.pciAddress ? -1 : 1))[0];
  return {
    ...amdLabels(
      'amd.com/gpu.device-id',
      perGpu(amd, (gpu) => hexId(gpu.attributes['device'])),
    ),
    ...amdLabels('amd.com/gpu.product-name', perGpu(amd, productName)),
    ...amdLabels('amd.com/gpu.vram', perGpu(amd, vram)),
    ...(modes.length === perGpu(amd, (gpu) => gpu.pciAddress).length && new Set(modes).size === 1
      ? { 'amd.com/compute-memory-partition': modes[0] ?? '' }
      : {}),
    'amd.com/compute-partitioning-supported': String(
      first?.attributes['availableComputePartitions'] !== undefined,
    ),
    'amd.com/memory-partitioning-supported': String(
      first?.attributes['availableMemoryPartitions'] !== undefined,
    ),
  };
}

/** Intel labels as its NFD rules name them: `gpu.intel.com/device-id.<class>-<device>.present` and `.count`. */
function intelLabels(gpus: readonly Advertised[], facts: GpuFeatureFacts): Record<string, string> {
  const intel = gpus.filter(({ gpu }) => gpu.kind === 'i915' || gpu.kind === 'xe');
  const ids = perGpu(intel, (gpu) => {
    const pciClass = facts.pciClass.get(gpu.pciAddress);
    const device = hexId(gpu.attributes['device']);
    return pciClass === undefined || device === undefined ? undefined : `${pciClass}-${device}`;
  });
  const labels: Record<string, string> = {};
  for (const id of ids) {
    labels[`gpu.intel.com/device-id.${id}.present`] = 'true';
    labels[`gpu.intel.com/device-id.${id}.count`] = String(ids.filter((other) => other === id).length);
  }
  return labels;
}

/**
 * The node feature labels of the GPU plugin: NVIDIA's (GPU Feature Discovery names), AMD's (ROCm node labeller
 * names), Intel's (its NFD rules' names), and `<resource>.count` (devices, not replicas) for every AMD and Intel
 * resource (`amd.com/gpu.count`, `gpu.intel.com/i915.count`).
 */
export function gpuFeatures(set: ResourceSet, config: GpuConfig, facts: GpuFeatureFacts): FeatureLabels {
  const gpus = advertisedGpus(set);
  const counts: Record<string, string> = {};
  for (const { gpu, resource } of gpus) {
    if (gpu.kind === 'nvidia' || gpu.kind === 'nvidia-mig') continue;
    counts[`${resource}.count`] = String(Number(counts[`${resource}.count`] ?? 0) + 1);
  }
  return {
    ...nvidiaLabels(gpus, config),
    ...amdGpuLabels(gpus, facts),
    ...intelLabels(gpus, facts),
    ...counts,
  };
}

/** Reads what {@link gpuFeatures} needs from sysfs: AMD VRAM sizes and Intel PCI classes (garbage = left out). */
export async function readGpuFeatureFacts(set: ResourceSet, sysfs: Sysfs): Promise<GpuFeatureFacts> {
  const vramBytes = new Map<string, number>();
  const pciClass = new Map<string, string>();
  for (const { gpu } of advertisedGpus(set)) {
    const dir = `bus/pci/devices/${gpu.pciAddress}`;
    if (gpu.kind === 'amd' && !vramBytes.has(gpu.pciAddress)) {
      const text = await sysfs.read(`${dir}/mem_info_vram_total`);
      if (text !== undefined && /^\d{1,20}$/.test(text) && Number(text) > 0)
        vramBytes.set(gpu.pciAddress, Number(text));
    }
    if ((gpu.kind === 'i915' || gpu.kind === 'xe') && !pciClass.has(gpu.pciAddress)) {
      const text = await sysfs.read(`${dir}/class`);
      const match = text === undefined ? null : /^0x([0-9a-f]{4})[0-9a-f]{2}$/i.exec(text);
      if (match?.[1] !== undefined) pciClass.set(gpu.pciAddress, match[1].toLowerCase());
    }
  }
  return { vramBytes, pciClass };
}

/** The plugin's `features` hook: the facts from sysfs, then {@link gpuFeatures}. */
export async function readGpuFeatures(
  set: ResourceSet,
  ctx: Pick<PluginContext<GpuConfig>, 'host' | 'config'>,
): Promise<FeatureLabels> {
  return gpuFeatures(set, ctx.config, await readGpuFeatureFacts(set, ctx.host.sysfs));
}
