import { definePlugin } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { gpuConfigSchema } from './config';
import { loadNvmlXidSource } from './health/nvml-xid-source';
import { createXidHealth, type XidSourceFactory } from './health/xid-health';
import { gpuChangeProbe } from './scan/gpu-change-probe';
import { planResources } from './resources/plan-resources';
import type { GpuScan } from './scan/gpu';
import { scanGpus } from './scan/scan-gpus';

/** Options of {@link createGpuPlugin}. */
export interface GpuPluginOptions {
  /** The Xid event source (default: NVML through koffi when libnvidia-ml.so.1 loads). */
  readonly xidSource?: XidSourceFactory;
}

/**
 * `gpu-device-plugin`: NVIDIA GPUs and MIG devices, AMD and Intel GPUs from sysfs, procfs and /dev alone, one
 * resource per kind (or model), rescanned on every change under /dev and when the change probe (sysfs, procfs)
 * differs. A GPU is advertised once it was healthy; one that vanishes stays advertised Unhealthy until it returns.
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
    // /proc/driver/nvidia: GPU UUIDs and minors, MIG instances.
    reads: { procfs: true },
    setup: (ctx) => ({ xid: createXidHealth(ctx, options.xidSource ?? loadNvmlXidSource) }),
    scan: {
      // Device nodes come and go under these (inotify); sysfs and procfs changes are found by the probe.
      watch: () => ({ devfs: ['/dev', '/dev/dri', '/dev/nvidia-caps'] }),
      interval: '500ms',
      probe: (scan: GpuScan) => gpuChangeProbe(scan),
      run: async ({ host, state }) => state.xid.mark(await scanGpus(host)),
    },
    resources: (scan, { config }) => planResources(scan, config),
    hooks: { stop: ({ state }) => state.xid.stop() },
  });
}

/** The GPU plugin as its binary and kdp-device-plugins run it. */
export const gpuPlugin = createGpuPlugin();
