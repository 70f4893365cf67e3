import { definePlugin } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { createNvidiaCdi } from './allocate/nvidia-cdi';
import { gpuConfigSchema } from './config';
import { loadNvmlXidSource } from './health/nvml-xid-source';
import { createXidHealth, type XidSourceFactory } from './health/xid-health';
import { planResources } from './resources/plan-resources';
import { scanGpus } from './scan/scan-gpus';

/** Options of {@link createGpuPlugin}. */
export interface GpuPluginOptions {
  /** The Xid event source (default: NVML through koffi when libnvidia-ml.so.1 loads). */
  readonly xidSource?: XidSourceFactory;
}

/**
 * `gpu-device-plugin`: NVIDIA GPUs and MIG devices, AMD and Intel GPUs from sysfs, procfs and /dev alone, one
 * resource per kind (or model), rescanned on every change under /dev and at least every --poll-interval. A
 * GPU is advertised once it was healthy; one that vanishes stays advertised Unhealthy until it returns.
 */
export function createGpuPlugin(options: GpuPluginOptions = {}) {
  return definePlugin({
    name: 'gpu',
    binary: 'gpu-device-plugin',
    title: 'GPU device plugin (NVIDIA, AMD, Intel) from sysfs, procfs and /dev',
    version: packageJson.version,
    config: { schema: gpuConfigSchema },
    // A GPU never seen healthy is held back (listed as excluded); one that vanished stays Unhealthy until it is back.
    health: { holdUntilHealthy: true, vanishedGraceMs: Infinity },
    setup: (ctx) => ({
      xid: createXidHealth(ctx, options.xidSource ?? loadNvmlXidSource),
      cdi: createNvidiaCdi(ctx.cdiDir, ctx.logger),
    }),
    scan: {
      watch: () => ({ devfs: ['/dev', '/dev/dri', '/dev/nvidia-caps'] }),
      interval: '1s',
      run: async ({ host, state }) => state.xid.mark(await scanGpus(host)),
    },
    resources: (scan, { config }) => planResources(scan, config),
    hooks: {
      advertise: (set, { config, state }) =>
        config.nvidia.deviceListStrategy.includes('cdi') ? state.cdi.update(set) : state.cdi.remove(),
      stop: async ({ state }) => {
        state.xid.stop();
        await state.cdi.remove();
      },
    },
  });
}

/** The GPU plugin as its binary and kdp-device-plugins run it. */
export const gpuPlugin = createGpuPlugin();
