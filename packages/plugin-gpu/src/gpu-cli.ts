import { runPluginCli, type Logger, type ProcessSignals, type TextSink } from '@kdp/core';
import { discoverGpus } from './gpu-discover';
import { defaultGpuConfig, gpuConfigSchema } from './gpu-config';
import { serveGpus } from './gpu-serve';
import type { XidEventSource } from './health/xid-health';
import { loadNvmlXidSource } from './health/nvml-xid-source';

/** The plugin's version, printed by --version. */
export const GPU_PLUGIN_VERSION = '0.1.0';

/** Options of {@link runGpuCli}; everything but `argv` is injectable for in-process tests. */
export interface GpuCliOptions {
  readonly argv: readonly string[];
  readonly stdout?: TextSink;
  readonly stderr?: TextSink;
  readonly signals?: ProcessSignals;
  /** The Xid event source (default: NVML through koffi when libnvidia-ml.so.1 loads). */
  readonly xidSource?: (logger: Logger) => XidEventSource | undefined;
}

/** `gpu-device-plugin`: the plugin contract's CLI (`serve`, `discover`, common flags); resolves with the exit code. */
export function runGpuCli(options: GpuCliOptions): Promise<number> {
  return runPluginCli({
    name: 'GPU device plugin (NVIDIA, AMD, Intel) from sysfs, procfs and /dev',
    binary: 'gpu-device-plugin',
    version: GPU_PLUGIN_VERSION,
    argv: options.argv,
    configSchema: gpuConfigSchema,
    defaults: defaultGpuConfig,
    ...(options.stdout !== undefined ? { stdout: options.stdout } : {}),
    ...(options.stderr !== undefined ? { stderr: options.stderr } : {}),
    ...(options.signals !== undefined ? { signals: options.signals } : {}),
    discover: (ctx) =>
      discoverGpus(
        { sysfsRoot: ctx.flags.sysfsRoot, procRoot: ctx.flags.procRoot, devRoot: ctx.flags.devRoot },
        ctx.config,
      ),
    serve: (ctx) => serveGpus(ctx, { xidSource: options.xidSource ?? loadNvmlXidSource }),
  });
}
