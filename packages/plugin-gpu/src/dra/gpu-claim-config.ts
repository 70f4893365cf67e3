import { envSuffix } from '@kdp/dra';
import type { ClaimConfigKind, ClaimConfigValue, ResourceClaimConfig } from '@kdp/core';
import type { GpuKind } from '../scan/gpu';
import type { GpuPayload } from '../resources/gpu-payload';

/** NVIDIA's time-slice intervals (`nvidia-smi compute-policy --set-timeslice`, NVIDIA's DRA driver's names). */
export const TIME_SLICE_INTERVALS = ['Default', 'Short', 'Medium', 'Long'] as const;

/** The variables that name a container's devices: DRA sets them (or `void`), a claim may not. */
const DEVICE_LIST_ENV = [
  'NVIDIA_VISIBLE_DEVICES',
  'CUDA_VISIBLE_DEVICES',
  'ROCR_VISIBLE_DEVICES',
  'HIP_VISIBLE_DEVICES',
  'GPU_DEVICE_ORDINAL',
  'ZE_AFFINITY_MASK',
];

/** The runtime's variable prefixes per vendor: a claim's env for a GPU must be its vendor's. */
const ENV_PREFIXES: Readonly<Record<'nvidia' | 'amd' | 'intel', readonly string[]>> = {
  nvidia: ['NVIDIA_', 'CUDA_'],
  amd: ['ROCR_', 'HIP_', 'HSA_', 'AMD_', 'GPU_'],
  intel: ['ZE_', 'SYCL_', 'ONEAPI_', 'NEO'],
};

/**
 * `gpu.kdp.dev/v1alpha1` `GpuConfig`: the per-claim settings of NVIDIA's, AMD's and Intel's device-plugin
 * configurations that still mean something under DRA. `sharing.timeSlicing.interval` (NVIDIA) and `env`, the
 * runtime variables the vendors' plugins set (`NVIDIA_DRIVER_CAPABILITIES`, `HSA_OVERRIDE_GFX_VERSION`,
 * `ZE_FLAT_DEVICE_HIERARCHY`, …); `replicas` is refused: under DRA a GPU is shared by capacity.
 */
export const gpuConfigKind: ClaimConfigKind = {
  apiVersion: 'gpu.kdp.dev/v1alpha1',
  kind: 'GpuConfig',
  schema: {
    type: 'object',
    fields: {
      sharing: {
        type: 'object',
        description: 'How the claim shares its GPUs.',
        fields: {
          timeSlicing: {
            type: 'object',
            fields: {
              interval: {
                type: 'string',
                enum: TIME_SLICE_INTERVALS,
                description: 'NVIDIA: the time slice of each process on the GPU (nvidia-smi compute-policy).',
              },
              replicas: {
                type: 'refused',
                message:
                  'replicas are a device-plugin setting; under DRA several claims share a GPU by capacity (request a share with capacity.requests)',
              },
            },
          },
        },
      },
      env: {
        type: 'stringMap',
        description:
          'Runtime variables of the GPU vendor: NVIDIA_/CUDA_ (NVIDIA), ROCR_/HIP_/HSA_/AMD_/GPU_ (AMD), ZE_/SYCL_/ONEAPI_/NEO (Intel).',
        keyPattern: '^(NVIDIA_|CUDA_|ROCR_|HIP_|HSA_|AMD_|GPU_|ZE_|SYCL_|ONEAPI_|NEO)[A-Za-z0-9_]+$',
        reservedKeys: DEVICE_LIST_ENV,
        reservedMessage: 'names the container’s devices, which the DRA driver sets',
        maxEntries: 32,
      },
    },
  },
};

const vendorOf = (kind: GpuKind): keyof typeof ENV_PREFIXES =>
  kind.startsWith('nvidia') ? 'nvidia' : kind === 'amd' ? 'amd' : 'intel';

/** The environment variable carrying a device's time-slice interval (`KDP_GPU_TIMESLICE_INTERVAL_<DEVICE>`). */
export const timeSliceEnv = (deviceName: string): string =>
  `KDP_GPU_TIMESLICE_INTERVAL_${envSuffix(deviceName)}`;

/** The claim's GpuConfigs merged in order (later ones win, env per name). */
function merged(config: readonly ClaimConfigValue[]): { interval?: string; env: Record<string, string> } {
  let interval: string | undefined;
  const env: Record<string, string> = {};
  for (const value of config) {
    const sharing = value['sharing'] as { timeSlicing?: { interval?: string } } | undefined;
    interval = sharing?.timeSlicing?.interval ?? interval;
    Object.assign(env, (value['env'] as Record<string, string> | undefined) ?? {});
  }
  return { ...(interval !== undefined ? { interval } : {}), env };
}

/**
 * A GPU resource's claim configuration: `GpuConfig` applied at prepare as CDI edits of each device — its `env`
 * as given (each name must be of the GPU's vendor), and NVIDIA's time-slice interval as
 * `KDP_GPU_TIMESLICE_INTERVAL_<DEVICE>`, for the workload and node tooling to read (kdp does not change the GPU's
 * scheduler: NVIDIA's DRA driver runs nvidia-smi for it, kdp shells out to nothing).
 */
export const gpuClaimConfig: ResourceClaimConfig<GpuPayload> = {
  kinds: [gpuConfigKind],
  apply({ device, deviceName, config }) {
    const kind = device.payload?.gpu.kind ?? 'nvidia';
    const vendor = vendorOf(kind);
    const { interval, env } = merged(config);
    if (interval !== undefined && vendor !== 'nvidia')
      throw new Error(
        `GpuConfig sharing.timeSlicing.interval is an NVIDIA setting; ${device.id} is an ${vendor} GPU`,
      );
    const foreign = Object.keys(env).filter((name) => !ENV_PREFIXES[vendor].some((p) => name.startsWith(p)));
    if (foreign.length > 0)
      throw new Error(
        `GpuConfig env ${foreign.join(', ')} is not for ${vendor} GPU ${device.id} (its variables start with ${ENV_PREFIXES[vendor].join(', ')})`,
      );
    return { env: { ...env, ...(interval !== undefined ? { [timeSliceEnv(deviceName)]: interval } : {}) } };
  },
};
