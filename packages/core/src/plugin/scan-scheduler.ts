import { watch, type FSWatcher } from 'node:fs';
import type { Clock, TimerHandle } from '@kdp/base';

/** Options of {@link createScanScheduler}. */
export interface ScanSchedulerOptions {
  /** One scan and what follows from it; must not throw (the caller logs its own failures). */
  readonly scan: () => Promise<void>;
  /** The longest time between two scans, read after every scan. */
  readonly intervalMs: () => number;
  /** Directories whose changes start a scan at once, read after every scan (new ones are watched). */
  readonly watch: () => readonly string[];
  readonly clock: Clock;
  /**
   * The change probe: on an interval tick, a full scan runs only when it returns true (a watch event or
   * `rescan()` always scans). Absent: every tick scans.
   */
  readonly changed?: () => boolean;
  /** Told what started each scan, and of every probe that found nothing changed (for metrics). */
  readonly observe?: (event: ScanTrigger | 'unchanged') => void;
}

/** What started a scan: the start, a watched directory, `rescan()`, the interval (no probe) or the probe. */
export type ScanTrigger = 'start' | 'watch' | 'rescan' | 'interval' | 'probe';

/** When scans run: at start, after every interval, on every watched change and on request; never two at once. */
export interface ScanScheduler {
  /** Runs the first scan; resolves once it finished. */
  start(): Promise<void>;
  /** Asks for a scan now; during a scan, one more runs right after it (any number of requests make one). */
  rescan(): void;
  /** Stops the timer and the watches; resolves once a running scan finished. */
  stop(): Promise<void>;
  /** The directories watched now (for tests and diagnostics). */
  watching(): string[];
}

/** Creates a scheduler; nothing runs before `start`. */
export function createScanScheduler(options: ScanSchedulerOptions): ScanScheduler {
  const { clock } = options;
  const watchers = new Map<string, FSWatcher>();
  let timer: TimerHandle | undefined;
  let running: Promise<void> | undefined;
  let again: ScanTrigger | undefined;
  let stopped = false;

  const schedule = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = stopped ? undefined : clock.setTimeout(tick, options.intervalMs());
  };

  /** An interval tick: the probe decides whether a full scan is needed. */
  const tick = (): void => {
    timer = undefined;
    if (stopped || running !== undefined) return;
    if (options.changed === undefined) {
      void run('interval');
      return;
    }
    let changed: boolean;
    try {
      changed = options.changed();
    } catch {
      changed = true; // a probe that cannot run says nothing: scan
    }
    if (changed) void run('probe');
    else {
      options.observe?.('unchanged');
      schedule();
    }
  };

  /** Watches what is declared now: new directories are added, ones no longer declared are closed. */
  const refreshWatches = (): void => {
    const wanted = new Set(options.watch());
    for (const [path, watcher] of watchers) {
      if (wanted.has(path)) continue;
      watcher.close();
      watchers.delete(path);
    }
    for (const path of wanted) {
      if (watchers.has(path)) continue;
      try {
        const watcher = watch(path, { persistent: false }, () => void run('watch'));
        watcher.on('error', () => {
          watcher.close();
          if (watchers.get(path) === watcher) watchers.delete(path);
        });
        watchers.set(path, watcher);
      } catch {
        // Missing or not watchable yet: tried again after the next scan; the interval covers it meanwhile.
      }
    }
  };

  const run = (trigger: ScanTrigger): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running !== undefined) {
      // One more scan after this one, counted under the first trigger that asked for it.
      again ??= trigger;
      return running;
    }
    running = (async () => {
      let next: ScanTrigger | undefined = trigger;
      while (next !== undefined && !stopped) {
        options.observe?.(next);
        again = undefined;
        await options.scan();
        if (!stopped) refreshWatches();
        next = again;
        // Let I/O run before the next scan: the device list just pushed reaches the kubelet first.
        if (next !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })().finally(() => {
      running = undefined;
      schedule();
    });
    return running;
  };

  const rescan = (): void => void run('rescan');

  return {
    start: () => run('start'),
    rescan,
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      await running;
    },
    watching: () => [...watchers.keys()].sort(),
  };
}
