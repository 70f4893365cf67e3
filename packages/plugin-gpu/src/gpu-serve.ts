import { join } from 'node:path';
import {
  createCdiSpecWriter,
  createDevicePlugin,
  createFsWatchTrigger,
  createPollingSource,
  defineResource,
  serveDevicePlugin,
  type AnyResourceDeclaration,
  type CdiDevice,
  type DeviceSource,
  type Logger,
  type PluginDevice,
  type ScanTrigger,
  type ServeContext,
} from '@kdp/core';
import { allocateGpus, NVIDIA_CDI_CLASS, NVIDIA_CDI_VENDOR, nvidiaCdiName } from './allocate/allocate-gpus';
import { toPluginDevices, type GpuPayload } from './allocate/gpu-devices';
import { gpuPreferredAllocation } from './allocate/gpu-preferred-allocation';
import type { Gpu } from './discovery/gpu';
import { scanGpus } from './discovery/scan-gpus';
import type { GpuConfig } from './gpu-config';
import { createGpuTracker } from './health/gpu-tracker';
import { createXidHealth, type XidEventSource } from './health/xid-health';

/** What `serve` needs beyond the CLI context. */
export interface ServeGpusOptions {
  /** Creates the Xid event source once NVIDIA GPUs are seen (undefined = sysfs health only). */
  readonly xidSource?: (logger: Logger) => XidEventSource | undefined;
}

/** The `serve` command: serves until the signal fires; a configuration reload re-creates the resources. */
export async function serveGpus(ctx: ServeContext<GpuConfig>, options: ServeGpusOptions = {}): Promise<void> {
  // NVML is tried once per process (so "not available" is logged once), not once per configuration.
  let tried = false;
  let source: XidEventSource | undefined;
  const xidSource = (logger: Logger): XidEventSource | undefined => {
    if (!tried) source = options.xidSource?.(logger);
    tried = true;
    return source;
  };
  while (!ctx.signal.aborted) {
    const generation = new AbortController();
    const onAbort = (): void => generation.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const unsubscribe = ctx.onConfigChange(() => {
      ctx.logger.info('configuration changed; re-creating the GPU resources');
      generation.abort();
    });
    try {
      await serveOnce(ctx, ctx.config, generation.signal, { xidSource });
    } finally {
      unsubscribe();
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }
}

async function serveOnce(
  ctx: ServeContext<GpuConfig>,
  config: GpuConfig,
  signal: AbortSignal,
  options: ServeGpusOptions,
): Promise<void> {
  const { flags, logger } = ctx;
  const roots = { sysfsRoot: flags.sysfsRoot, procRoot: flags.procRoot, devRoot: flags.devRoot };
  const xid = createXidHealth({
    ignoredXids: config.health.ignoredXids,
    holdMs: config.health.xidHoldSeconds * 1000,
  });
  const tracker = createGpuTracker((ids) => xid.problems(ids));
  const warned = new Set<string>();
  let xidStarted = false;
  let fireScan: () => void = () => undefined;
  const xidTrigger: ScanTrigger = (fire) => {
    fireScan = fire;
    return () => (fireScan = () => undefined);
  };
  const stops: Array<() => void> = [];

  const source = createPollingSource<GpuPayload>({
    intervalMs: config.health.pollIntervalMs,
    triggers: [
      createFsWatchTrigger([flags.devRoot, join(flags.devRoot, 'dri'), join(flags.devRoot, 'nvidia-caps')]),
      xidTrigger,
    ],
    onError: (error) => logger.error({ err: String(error) }, 'GPU scan failed; keeping the last list'),
    scan: async () => {
      const scan = await scanGpus(roots);
      for (const warning of scan.warnings) {
        if (!warned.has(warning)) logger.warn({ warning }, 'sysfs');
        warned.add(warning);
      }
      const { gpus, changes } = tracker.update(scan);
      for (const change of changes) {
        const log = change.health === 'Healthy' ? logger.info : logger.warn;
        log.call(
          logger,
          { device: change.id, problems: change.problems },
          `GPU ${change.health.toLowerCase()}`,
        );
      }
      if (!xidStarted && config.health.nvml === 'auto' && gpus.some((g) => g.gpu.kind.startsWith('nvidia'))) {
        xidStarted = true;
        const events = options.xidSource?.(logger);
        if (events !== undefined) {
          stops.push(
            events.start((event) => {
              logger.warn({ uuid: event.uuid, xid: event.xid }, 'NVML Xid event');
              xid.handle(event);
              fireScan();
            }),
          );
        }
      }
      return toPluginDevices(gpus, config);
    },
  });

  const cdi = config.nvidia.deviceListStrategy.includes('cdi')
    ? createCdiSpecWriter({ dir: flags.cdiDir, vendor: NVIDIA_CDI_VENDOR, class: NVIDIA_CDI_CLASS })
    : undefined;
  let cdiKey = '';
  const writeCdi = (devices: readonly PluginDevice<GpuPayload>[]): void => {
    if (cdi === undefined) return;
    const gpus = new Map<string, Gpu>();
    for (const device of devices) {
      const gpu = device.payload?.gpu;
      if (gpu !== undefined && gpu.kind.startsWith('nvidia')) gpus.set(gpu.id, gpu);
    }
    const specDevices: CdiDevice[] = [...gpus.values()].map((gpu) => ({
      name: nvidiaCdiName(gpu),
      containerEdits: { deviceNodes: gpu.deviceNodes.map((path) => ({ path })) },
    }));
    const shared = [...new Set([...gpus.values()].flatMap((gpu) => gpu.sharedNodes))];
    const key = JSON.stringify([specDevices, shared]);
    if (key === cdiKey) return;
    cdiKey = key;
    cdi
      .write(specDevices, { deviceNodes: shared.map((path) => ({ path })) })
      .then(() => logger.info({ cdi: cdi.path, devices: specDevices.length }, 'CDI spec written'))
      .catch((error: unknown) => logger.error({ err: String(error) }, 'CDI spec not written'));
  };

  const declare = (name: string): AnyResourceDeclaration =>
    defineResource<GpuPayload>({
      name,
      source: filtered(source, name),
      options: { getPreferredAllocationAvailable: true },
      preferredAllocation: gpuPreferredAllocation(config.sharing.replicas),
      allocate: ({ devices }) => allocateGpus(devices, config),
    });

  const served = new Set<string>();
  let firstList: (names: string[]) => void = () => undefined;
  const first = new Promise<string[]>((resolve) => (firstList = resolve));
  let plugin: ReturnType<typeof createDevicePlugin> | undefined;
  const unsubscribe = source.subscribe((devices) => {
    writeCdi(devices);
    const names = [
      ...new Set(devices.map((d) => d.payload?.resource).filter((n): n is string => n !== undefined)),
    ];
    if (plugin === undefined) {
      firstList(names);
      return;
    }
    for (const name of names) {
      if (served.has(name)) continue;
      served.add(name);
      logger.info({ resource: name }, 'new resource');
      plugin.addResource(declare(name));
    }
  });
  try {
    const names = await Promise.race([
      first,
      new Promise<string[]>((resolve) => signal.addEventListener('abort', () => resolve([]), { once: true })),
    ]);
    if (signal.aborted) return;
    if (names.length === 0) logger.warn('no GPU found yet; resources are added when GPUs appear');
    for (const name of names) served.add(name);
    plugin = createDevicePlugin({
      resources: names.map(declare),
      devicePluginDir: flags.devicePluginDir,
      logger,
      handleSignals: false,
    });
    await serveDevicePlugin({ metrics: ctx.metrics, signal }, plugin);
  } finally {
    unsubscribe();
    for (const stop of stops) stop();
    await cdi?.remove().catch(() => undefined);
  }
}

/** The devices of one resource, from the shared scanning source. */
function filtered(source: DeviceSource<GpuPayload>, resource: string): DeviceSource<GpuPayload> {
  return {
    subscribe: (listener) =>
      source.subscribe((devices) =>
        listener(devices.filter((device) => device.payload?.resource === resource)),
      ),
  };
}
