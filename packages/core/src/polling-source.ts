import { systemClock, type Clock, type TimerHandle } from '@kdp/base';
import type { DeviceListener, DeviceSource } from './device-source';
import type { PluginDevice } from './plugin-device';

/** Something that says "rescan now" (an inotify watch, a udev event, …); returns its stop function. */
export type ScanTrigger = (fire: () => void) => () => void;

/** Options of {@link createPollingSource}. */
export interface PollingSourceOptions<P> {
  /** Returns the FULL current list; may be async; a throw keeps the last list and is reported to `onError`. */
  scan: () => readonly PluginDevice<P>[] | Promise<readonly PluginDevice<P>[]>;
  /** Milliseconds between scans (default 1000). */
  intervalMs?: number;
  /** Extra triggers that scan at once, e.g. {@link createFsWatchTrigger}; the poll stays as the fallback. */
  triggers?: readonly ScanTrigger[];
  /** Called when a scan throws. */
  onError?: (error: unknown) => void;
  clock?: Clock;
}

/** A polling source: scans at start, every `intervalMs`, and whenever a trigger fires (scans never overlap). */
export function createPollingSource<P = unknown>(options: PollingSourceOptions<P>): DeviceSource<P> {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? 1000;
  const listeners = new Set<DeviceListener<P>>();
  let latest: readonly PluginDevice<P>[] | undefined;
  let timer: TimerHandle | undefined;
  let running = false;
  let again = false;
  let active = false;
  let stopTriggers: Array<() => void> = [];

  const schedule = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = active ? clock.setTimeout(() => void scanNow(), intervalMs) : undefined;
  };

  const scanNow = async (): Promise<void> => {
    if (!active) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        try {
          const list = await options.scan();
          if (!active) return;
          latest = list;
          for (const listener of [...listeners]) listener(list);
        } catch (error) {
          options.onError?.(error);
        }
      } while (again && active);
    } finally {
      running = false;
      schedule();
    }
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (latest !== undefined) listener(latest);
      if (!active) {
        active = true;
        stopTriggers = (options.triggers ?? []).map((trigger) => trigger(() => void scanNow()));
        void scanNow();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && active) {
          active = false;
          for (const stop of stopTriggers) stop();
          stopTriggers = [];
          if (timer !== undefined) clock.clearTimeout(timer);
          timer = undefined;
        }
      };
    },
  };
}
