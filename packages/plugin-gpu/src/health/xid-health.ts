import type { Clock } from '@kdp/core';
import { systemClock } from '@kdp/core';

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

/** Options of {@link createXidHealth}. */
export interface XidHealthOptions {
  /** Xids that are application errors, not GPU faults. */
  readonly ignoredXids: readonly number[];
  /** How long a critical Xid keeps the GPU unhealthy; 0 = for the process's lifetime. */
  readonly holdMs: number;
  readonly clock?: Pick<Clock, 'now'>;
  /** Called after every event that changed a GPU's state (triggers a rescan). */
  readonly onChange?: () => void;
}

/** GPU health from Xid events; {@link XidHealth.problems} plugs into the tracker. */
export interface XidHealth {
  /** Records an event. */
  handle(event: XidEvent): void;
  /** Problems per GPU UUID now (`*` for events without a UUID applies to all). */
  problems(ids: readonly string[]): ReadonlyMap<string, readonly string[]>;
}

/** Tracks critical Xids per GPU; unhealthy for `holdMs` after the last one, then healthy again. */
export function createXidHealth(options: XidHealthOptions): XidHealth {
  const clock = options.clock ?? systemClock;
  const ignored = new Set(options.ignoredXids);
  const until = new Map<string, { xid: number; until: number }>();
  return {
    handle(event) {
      if (ignored.has(event.xid)) return;
      const end = options.holdMs === 0 ? Number.POSITIVE_INFINITY : clock.now() + options.holdMs;
      until.set(event.uuid ?? '*', { xid: event.xid, until: end });
      options.onChange?.();
    },
    problems(ids) {
      const now = clock.now();
      const out = new Map<string, string[]>();
      for (const [key, entry] of until) {
        if (entry.until <= now) {
          until.delete(key);
          continue;
        }
        const message = `NVML reported critical Xid ${entry.xid}`;
        for (const id of key === '*' ? ids : [key]) out.set(id, [...(out.get(id) ?? []), message]);
      }
      return out;
    },
  };
}
