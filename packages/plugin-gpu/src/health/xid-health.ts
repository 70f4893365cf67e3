import type { Logger } from '@kdp/core';
import type { SetupContext } from '@kdp/core/plugin';
import type { GpuConfig } from '../config';
import type { GpuScan } from '../scan/gpu';

/** One NVML event as the health code sees it. */
export interface XidEvent {
  /** GPU UUID the event is about; undefined = unknown GPU (marks every GPU, as NVIDIA's plugin does). */
  readonly uuid?: string;
  readonly xid: number;
}

/** A source of Xid events (NVML through koffi in production, a fake in tests). */
export interface XidEventSource {
  /** Starts delivering events; returns the stop function. */
  start(onEvent: (event: XidEvent) => void): () => void;
}

/** Creates the Xid event source once NVIDIA GPUs are seen; undefined: health from sysfs, procfs and /dev only. */
export type XidSourceFactory = (logger: Logger) => XidEventSource | undefined;

/** What of the plugin context Xid health uses. */
export type XidContext = Pick<SetupContext<GpuConfig>, 'command' | 'config' | 'logger' | 'clock' | 'rescan'>;

/** GPU health from NVML Xid events, for the process's lifetime; see {@link createXidHealth}. */
export interface XidHealth {
  /** The scan with each GPU's critical-Xid problems and `xids` added (MIG devices by their parent GPU). */
  mark(scan: GpuScan): GpuScan;
  /** Stops the event source. */
  stop(): void;
}

/**
 * Critical Xids per GPU: a GPU is Unhealthy for `health.xidHoldSeconds` after its last one (0: until the
 * process ends); `health.ignoredXids` are application errors. The event source is tried once per process, in
 * `serve` with `health.nvml: auto`, when the first NVIDIA GPU is seen; each event asks for a rescan, and so does
 * the end of each hold, so that the GPU is Healthy again then (not at the next change).
 */
export function createXidHealth(ctx: XidContext, source: XidSourceFactory): XidHealth {
  const until = new Map<string, { xid: number; until: number }>();
  let tried = false;
  let stop = (): void => undefined;
  const timers = new Set<ReturnType<XidContext['clock']['setTimeout']>>();
  const handle = (event: XidEvent): void => {
    ctx.logger.warn({ uuid: event.uuid, xid: event.xid }, 'NVML Xid event');
    const { ignoredXids, xidHoldSeconds } = ctx.config.health;
    if (ignoredXids.includes(event.xid)) return;
    const end = xidHoldSeconds === 0 ? Infinity : ctx.clock.now() + xidHoldSeconds * 1000;
    until.set(event.uuid ?? '*', { xid: event.xid, until: end });
    ctx.rescan();
    if (end === Infinity) return;
    const timer = ctx.clock.setTimeout(() => {
      timers.delete(timer);
      ctx.rescan();
    }, xidHoldSeconds * 1000);
    timers.add(timer);
  };
  return {
    mark(scan) {
      if (!tried && ctx.command === 'serve' && ctx.config.health.nvml === 'auto') {
        tried = scan.gpus.some((gpu) => gpu.kind.startsWith('nvidia'));
        if (tried) stop = source(ctx.logger)?.start(handle) ?? stop;
      }
      const now = ctx.clock.now();
      for (const [key, entry] of until) if (entry.until <= now) until.delete(key);
      if (until.size === 0) return scan;
      const xidsOf = (id = ''): number[] =>
        [until.get(id), until.get('*')].flatMap((entry) => (entry ? [entry.xid] : []));
      const gpus = scan.gpus.map((gpu) => {
        const xids = xidsOf(gpu.kind === 'nvidia-mig' ? gpu.attributes.parent : gpu.id);
        if (xids.length === 0) return gpu;
        const more = xids.map((xid) => `NVML reported critical Xid ${xid}`);
        return { ...gpu, problems: [...gpu.problems, ...more], xids };
      });
      return { ...scan, gpus };
    },
    stop: () => {
      for (const timer of timers) ctx.clock.clearTimeout(timer);
      timers.clear();
      stop();
    },
  };
}
