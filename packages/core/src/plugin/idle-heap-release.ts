import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { systemClock, type Clock, type TimerHandle } from '@kdp/base';

/** What {@link startIdleHeapRelease} learns of one garbage collection V8 ran. */
export interface Collection {
  /** A scavenge of the young generation: the process is allocating. */
  readonly minor: boolean;
  /** Asked for through `gc()` (this module's own release, among others). */
  readonly forced: boolean;
}

/** `globalThis.gc` of `--expose-gc`: Node ≥ 22's V8 takes the kind of collection as an argument. */
type ExposedGc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * How many memory-reducing collections one release asks for. V8 drops the bytecode of a function that has not run
 * for 6 mark-compacts (`--bytecode-old-age`), and each of these collections is two: the fourth frees the pages of
 * the code that ran at the start only (configuration, flags, discovery), which the first three aged. Measured on the
 * idle GPU plugin, Node 24: heap used 12.8 → 10.9 MB, committed 14.3 → 12.5 MB, RssAnon 21.3 → 20.2 MiB; one
 * collection more flushes nothing more.
 */
const RELEASE_COLLECTIONS = 4;

/**
 * Full collections that also shrink the heap (V8's "last resort" flavour: it compacts and gives free pages back
 * to the system), enough of them to drop the bytecode of code that no longer runs, through `--expose-gc`'s `gc`;
 * undefined without `--expose-gc`. A plain `gc()` on Node 24 keeps the heap's size (measured on the idle GPU
 * plugin: 23.5 MiB committed after it, 14.3 after one of these); Node 20 ignores the argument, and its plain `gc()`
 * already shrinks.
 */
export function memoryReducingGc(
  exposed: unknown = (globalThis as { gc?: unknown }).gc,
): (() => void) | undefined {
  if (typeof exposed !== 'function') return undefined;
  const gc = exposed as ExposedGc;
  return () => {
    for (let i = 0; i < RELEASE_COLLECTIONS; i++)
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  };
}

/**
 * How long after the collection the C heap is trimmed and the code paged out: V8 frees the ArrayBuffer backing
 * stores it found dead (gRPC's buffers, malloc'd) on a concurrent sweeper, after the collection returned.
 */
const FOLLOW_UP_DELAY_MS = 1_000;

/**
 * A scavenge at least this long after the previous one is the idle process's own: its probes and timers allocate a
 * little every second, and fill the young generation every few seconds (measured: the idle SR-IOV plugin with four
 * resources, every 4–9 s). Such a scavenge neither counts toward a burst nor puts the release off; a burst
 * scavenges many times a second.
 */
const IDLE_GAP_MS = 2_000;

/** Options of {@link startIdleHeapRelease}. */
export interface IdleHeapReleaseOptions {
  /** A full, compacting collection: `globalThis.gc`, there when Node runs with `--expose-gc` (the images set it). */
  readonly gc: () => void;
  /**
   * Gives the C heap's free pages back (`createMallocTrim`), a second after a release whose collection found the
   * young generation grown: a burst of calls, whose freed buffers leave holes in the C heap. Not after a quiet
   * start, where it measured 0.3 MiB. Default nothing.
   */
  readonly trim?: () => void;
  /**
   * Hands back the resident pages of the read-only file mappings, Node's binary above all (`createPageOut`), a
   * second after every release: the start's and each burst's code stays resident otherwise. Default nothing.
   */
  readonly pageOut?: () => void;
  /** The young generation's size in bytes; default V8's `new_space` (`v8.getHeapSpaceStatistics`). */
  readonly youngGenerationBytes?: () => number;
  /** How long after the last scavenge of a burst (or of the start) the heap is released; default 10 s. */
  readonly quietMs?: number;
  /**
   * How many scavenges since the last release make a burst worth a release; default 16 (each is a young
   * generation's worth of allocation, a few MiB). Fewer — a rescan — are left to V8; the start is released.
   */
  readonly minScavenges?: number;
  /** The timers; default the system clock (unref'd timers). */
  readonly clock?: Clock;
  /** Tells `onCollection` of every collection until the returned stop is called; default a `gc` PerformanceObserver. */
  readonly observe?: (onCollection: (collection: Collection) => void) => () => void;
}

/** The size of V8's young generation (`new_space`), in bytes. */
function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** V8's collections as {@link Collection}s, through a PerformanceObserver of `gc` entries. */
export function observeCollections(onCollection: (collection: Collection) => void): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<
      PerformanceEntry & { detail?: { kind?: number; flags?: number } }
    >)
      onCollection({
        minor: entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR,
        forced: ((entry.detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0,
      });
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

/**
 * Gives the memory of a burst of work back once the process is quiet again: `quietMs` after the burst's last
 * scavenge (V8 scavenges only while the process allocates; one that comes `IDLE_GAP_MS` or more after the one
 * before is the idle process's own, and does not count), one full collection, when the burst scavenged at least
 * `minScavenges` times, or when it was the process's start. Under a burst V8 grows the young generation to its
 * maximum and keeps it, with the burst's garbage, after the process went idle (a plugin after 3,000 Allocates);
 * and the V8 of Node 24, which the images run, no longer shrinks the heap of an idle process after its start by
 * itself (measured: 31 MiB anonymous 20 s after start, 21.5 with this release; Node 20 released it on its own).
 * When the young generation had grown since the release started (8 MiB at a quiet start, 64 after 3,000
 * Allocates), the C heap is trimmed too, a second later (`trim`); then, after every release, the code's pages are
 * paged out (`pageOut`). Nothing runs while the process stays idle: the
 * timer is armed by a burst's scavenge only (or by the start itself, whether it scavenged or not), and the release's own (forced, full) collection
 * does not arm it again. A small burst later on (a rescan) is left alone. Returns the stop.
 */
export function startIdleHeapRelease(options: IdleHeapReleaseOptions): () => void {
  const clock = options.clock ?? systemClock;
  const quietMs = options.quietMs ?? 10_000;
  const minScavenges = options.minScavenges ?? 16;
  const youngBytes = options.youngGenerationBytes ?? youngGenerationBytes;
  const youngAtStart = youngBytes();
  let timer: TimerHandle | undefined;
  let followUpTimer: TimerHandle | undefined;
  /** Whether the pending follow-up trims the C heap (a release found the young generation grown). */
  let trimDue = false;
  /** The burst's scavenges since the last release. */
  let scavenges = 0;
  /** When the last scavenge ran, and whether it was apart from the one before (an idle one, or a burst's first). */
  let lastAt: number | undefined;
  let apart = false;
  let started = false;
  const followUp = (): void => {
    followUpTimer = undefined;
    if (trimDue) options.trim?.();
    trimDue = false;
    options.pageOut?.();
  };
  const release = (): void => {
    timer = undefined;
    if (scavenges >= minScavenges || !started) {
      const grown = youngBytes() > youngAtStart;
      options.gc();
      if (grown && options.trim !== undefined) trimDue = true;
      if ((trimDue || options.pageOut !== undefined) && followUpTimer === undefined)
        followUpTimer = clock.setTimeout(followUp, FOLLOW_UP_DELAY_MS);
    }
    started = true;
    scavenges = 0;
    apart = false;
  };
  const arm = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = clock.setTimeout(release, quietMs);
  };
  const stopObserving = (options.observe ?? observeCollections)((collection) => {
    if (!collection.minor || collection.forced) return;
    const now = clock.now();
    const close = lastAt !== undefined && now - lastAt < IDLE_GAP_MS;
    lastAt = now;
    if (close) {
      // A burst: this scavenge and the one apart that began it count, and the release waits for its end.
      scavenges += apart ? 2 : 1;
      apart = false;
      arm();
    } else {
      apart = true;
      if (!started && timer === undefined) arm();
    }
  });
  // The start is released even when it scavenged not once (a start compiled from the image's code cache may
  // not): quietMs from here, put off by its scavenges as above.
  arm();
  return () => {
    stopObserving();
    if (timer !== undefined) clock.clearTimeout(timer);
    if (followUpTimer !== undefined) clock.clearTimeout(followUpTimer);
    timer = undefined;
    followUpTimer = undefined;
  };
}
