import { definePlugin, flag } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { intelGpuCompat } from './compat/intel-gpu';
import { nvidiaCompat } from './compat/nvidia';
import { rocmCompat } from './compat/rocm';
import { gpuConfigSchema } from './config';
import { loadNvmlXidSource } from './health/nvml-xid-source';
import { createXidHealth, type XidSourceFactory } from './health/xid-health';
import { loadNvmlMig } from './nvml/nvml-mig';
import { lazyNvmlPartitions, withDynamicMig } from './dra/with-dynamic-mig';
import { loadNvmlPartitions, type NvmlPartitionsLoad } from './nvml/nvml-partitions';
import { resolveNvmlLibrary } from './nvml/resolve-nvml-library';
import { readGpuFeatures } from './features/gpu-features';
import { gpuChangeProbe } from './scan/gpu-change-probe';
import { planResources } from './resources/plan-resources';
import type { GpuScan } from './scan/gpu';
import { createMigStrategy, type NvmlMigFactory } from './scan/mig-strategy';
import { retiredGpuDevices } from './scan/retired-gpu-devices';
import { scanGpus } from './scan/scan-gpus';

/** Options of {@link createGpuPlugin}. */
export interface GpuPluginOptions {
  /** The Xid event source (default: NVML through koffi when libnvidia-ml.so.1 loads). */
  readonly xidSource?: XidSourceFactory;
  /** NVML for MIG profiles and UUIDs (default: libnvidia-ml.so.1 through koffi, loaded when MIG devices are seen). */
  readonly nvmlMig?: NvmlMigFactory;
  /** NVML for dynamic MIG partitions under DRA (default: libnvidia-ml.so.1, loaded when `--dra-dynamic-mig` is set). */
  readonly nvmlPartitions?: () => NvmlPartitionsLoad;
}

/**
 * `gpu-device-plugin`: NVIDIA GPUs and MIG devices, AMD and Intel GPUs from sysfs, procfs and /dev alone, one
 * resource per kind (or model), rescanned on every change under /dev and when the change probe (sysfs, procfs)
 * differs. A GPU is advertised once it was healthy; one that vanishes stays advertised Unhealthy until it returns
 * (a MIG device until it returns or its GPU is partitioned anew).
 */
export function createGpuPlugin(options: GpuPluginOptions = {}) {
  return definePlugin({
    name: 'gpu',
    binary: 'gpu-device-plugin',
    title: 'GPU device plugin (NVIDIA, AMD, Intel) from sysfs, procfs and /dev',
    version: packageJson.version,
    config: { schema: gpuConfigSchema },
    compat: [nvidiaCompat, rocmCompat, intelGpuCompat],
    flags: {
      'dra-dynamic-mig': flag.boolean({
        description:
          'serve --mode dra: publish the MIG partitions of GPUs in MIG mode (counters) and create them at prepare',
        mode: 'dra',
      }),
    },
    // /proc/driver/nvidia: GPU UUIDs and minors, MIG instances.
    reads: { procfs: true },
    // A GPU never seen healthy is held back (listed as excluded); one that vanished stays Unhealthy until it is back.
    health: { holdUntilHealthy: true, vanishedGraceMs: Infinity },
    setup: (ctx) => {
      // libnvidia-ml.so.1 under the driver root mounted here (NVIDIA's /driver-root), else the dynamic loader's.
      const library = resolveNvmlLibrary(ctx.config.nvidia.containerDriverRoot);
      return {
        xid: createXidHealth(ctx, options.xidSource ?? ((logger) => loadNvmlXidSource(logger, { library }))),
        mig: createMigStrategy({
          logger: ctx.logger,
          nvml: options.nvmlMig ?? (() => loadNvmlMig({ library })),
        }),
        partitions: ctx.flags['dra-dynamic-mig']
          ? lazyNvmlPartitions(options.nvmlPartitions ?? (() => loadNvmlPartitions(library)), ctx.logger)
          : undefined,
      };
    },
    scan: {
      // Device nodes come and go under these (inotify); sysfs and procfs changes are found by the probe.
      watch: () => ({ devfs: ['/dev', '/dev/dri', '/dev/nvidia-caps'] }),
      interval: '500ms',
      probe: (scan: GpuScan) => gpuChangeProbe(scan),
      run: async ({ host, state, config }) =>
        state.xid.mark(state.mig.apply(await scanGpus(host), config.nvidia.migStrategy)),
    },
    // A MIG device or AMD partition of a GPU that reports a new partition layout is gone for good, not kept Unhealthy.
    resources: (scan, ctx) =>
      withDynamicMig(
        { ...planResources(scan, ctx.config), retired: retiredGpuDevices(scan) },
        ctx.state.partitions,
        ctx,
      ),
    features: (set, ctx) => readGpuFeatures(set, ctx),
    hooks: { stop: ({ state }) => state.xid.stop() },
  });
}

/** The GPU plugin as its binary and kdp-device-plugins run it. */
export const gpuPlugin = createGpuPlugin();
