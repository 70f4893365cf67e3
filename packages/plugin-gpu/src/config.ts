import { posix } from 'node:path';
import { validateResourceName } from '@kdp/api';
import { z } from '@kdp/core';

const resourceName = z.string().superRefine((name, ctx) => {
  const check = validateResourceName(name);
  if (!check.valid)
    ctx.addIssue({ code: 'custom', message: `not a valid extended resource name: ${check.message}` });
});

/** An absolute, normalised path without NUL. */
const hostRoot = z
  .string()
  .refine((path) => posix.isAbsolute(path) && !path.includes('\0') && posix.normalize(path) === path, {
    message: 'must be an absolute, normalised path',
  });

/** Schema of the `--config` file (YAML or JSON); every key optional. */
export const gpuConfigSchema = z.strictObject({
  /** Renames the default resources. */
  resourceNames: z
    .strictObject({
      nvidia: resourceName.default('nvidia.com/gpu'),
      nvidiaMig: resourceName.default('nvidia.com/gpu'),
      amd: resourceName.default('amd.com/gpu'),
      i915: resourceName.default('gpu.intel.com/i915'),
      xe: resourceName.default('gpu.intel.com/xe'),
    })
    .prefault({}),
  /** One resource per product name: `<domain>/<model-slug>`, e.g. `nvidia.com/h100-80gb-hbm3`. */
  splitByModel: z.boolean().default(false),
  /** Explicit resource names per product name (the `model` attribute); wins over `splitByModel`. */
  modelResourceNames: z.record(z.string().min(1), resourceName).default({}),
  nvidia: z
    .strictObject({
      /** How containers learn their GPUs: `envvar` (NVIDIA_VISIBLE_DEVICES), `cdi` (CDI device names), or both. */
      deviceListStrategy: z
        .array(z.enum(['envvar', 'cdi']))
        .min(1)
        .default(['envvar']),
      /** Also pass the device nodes as DeviceSpecs (NVIDIA's PASS_DEVICE_SPECS). */
      passDeviceSpecs: z.boolean().default(false),
      /**
       * MIG, as NVIDIA's `migStrategy` (and its default): `none` advertises MIG-enabled GPUs whole, `single` their MIG devices under
       * the GPU resource, `mixed` one `nvidia.com/mig-<profile>` resource per MIG profile.
       */
      migStrategy: z.enum(['none', 'single', 'mixed']).default('none'),
      /**
       * How NVIDIA GPUs are named to the container runtime (NVIDIA_VISIBLE_DEVICES, CDI names), as NVIDIA's
       * `deviceIDStrategy`: `uuid` (GPU-…, MIG-…) or `index` (`0`, `0:1` for MIG); advertised IDs stay UUIDs.
       */
      deviceIDStrategy: z.enum(['uuid', 'index']).default('uuid'),
      /**
       * NVIDIA's `driverRoot` (`NVIDIA_DRIVER_ROOT`): where the driver is installed on the host, `/` or a driver
       * container's root (`/run/nvidia/driver`); the default of `devRoot`.
       */
      driverRoot: hostRoot.default('/'),
      /**
       * NVIDIA's `devRoot` (`NVIDIA_DEV_ROOT`; default `driverRoot`): the host root of the NVIDIA device nodes
       * handed over, `/dev/nvidia0` becoming `<devRoot>/dev/nvidia0` on the host (the container still sees
       * `/dev/nvidia0`).
       */
      devRoot: hostRoot.optional(),
      /**
       * NVIDIA's `containerDriverRoot`: where the driver root is mounted in this container (NVIDIA's chart mounts it
       * at `/driver-root`); libnvidia-ml.so.1 is looked for under it first, confined to it.
       */
      containerDriverRoot: hostRoot.default('/driver-root'),
    })
    .prefault({}),
  intel: z
    .strictObject({
      /**
       * As Intel's `-enable-monitoring`: one more device, `all`, holding every Intel GPU of the node (its card and
       * render nodes, and its MEI nodes), for monitoring agents; never shared.
       */
      monitoring: z.boolean().default(false),
      /**
       * As Intel's `-monitoring-mode`: `single`, one `gpu.intel.com/monitoring` resource; `split`, one per driver
       * (`gpu.intel.com/i915_monitoring`, `gpu.intel.com/xe_monitoring`).
       */
      monitoringMode: z.enum(['single', 'split']).default('single'),
    })
    .prefault({}),
  amd: z
    .strictObject({
      /** As ROCm's `resource_naming_strategy`: `single` (`amd.com/gpu`) or `mixed` (one resource per partition type). */
      resourceNamingStrategy: z.enum(['single', 'mixed']).default('single'),
    })
    .prefault({}),
  sharing: z
    .strictObject({
      /** Time-slicing: each GPU is advertised as this many replicas `<id>::<n>`. */
      replicas: z.number().int().min(1).max(64).default(1),
      /** With replicas > 1, refuse a container asking for more than one replica. */
      failRequestsGreaterThanOne: z.boolean().default(false),
      /** Shared resources get the `.shared` suffix unless a resource entry renames them (NVIDIA's renameByDefault). */
      renameByDefault: z.boolean().default(false),
      /**
       * Per-resource time-slicing (NVIDIA's `sharing.timeSlicing.resources`): these win over `replicas` for the
       * resources they name; `devices` selects GPUs by index, UUID or PCI address (`all` by default).
       */
      resources: z
        .array(
          z.strictObject({
            name: resourceName,
            replicas: z.number().int().min(1).max(64),
            rename: resourceName.optional(),
            devices: z
              .union([
                z.literal('all'),
                z.array(z.union([z.number().int().min(0), z.string().min(1)])).min(1),
              ])
              .default('all'),
          }),
        )
        .default([]),
    })
    .prefault({}),
  health: z
    .strictObject({
      /** NVML Xid health: `auto` uses libnvidia-ml.so.1 when it loads, `off` never tries. */
      nvml: z.enum(['auto', 'off']).default('auto'),
      /** Xid codes that do not mark a GPU unhealthy (NVIDIA's list by default). */
      ignoredXids: z.array(z.number().int().min(0)).default([13, 31, 43, 45, 68, 109]),
      /** How long a critical Xid keeps a GPU unhealthy (seconds); 0 = until restart, as NVIDIA's plugin. */
      xidHoldSeconds: z.number().int().min(0).default(300),
    })
    .prefault({}),
});

/** The parsed configuration. */
export type GpuConfig = z.output<typeof gpuConfigSchema>;
