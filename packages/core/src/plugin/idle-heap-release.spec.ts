import { createFakeClock } from '@kdp/kubelet-sim';
import {
  type Collection,
  memoryReducingGc,
  observeCollections,
  startIdleHeapRelease,
} from './idle-heap-release';

const MiB = 1024 * 1024;

describe('startIdleHeapRelease', () => {
  const setUp = (
    withPageOut = false,
  ): {
    collect: (c: Collection) => void;
    gcs: () => number;
    /** What ran, in order: `gc`, `trim` and (`withPageOut`) `page-out`. */
    log: string[];
    clock: ReturnType<typeof createFakeClock>;
    /** Sets the young generation's size, 8 MiB at the start. */
    young: (bytes: number) => void;
    stop: () => void;
  } => {
    const clock = createFakeClock();
    let listener: ((c: Collection) => void) | undefined;
    let count = 0;
    let youngBytes = 8 * MiB;
    const log: string[] = [];
    const stop = startIdleHeapRelease({
      gc: () => {
        count += 1;
        log.push('gc');
      },
      trim: () => log.push('trim'),
      ...(withPageOut ? { pageOut: () => log.push('page-out') } : {}),
      youngGenerationBytes: () => youngBytes,
      quietMs: 10_000,
      clock,
      observe: (onCollection) => {
        listener = onCollection;
        return () => {
          listener = undefined;
        };
      },
    });
    const young = (bytes: number): void => {
      youngBytes = bytes;
    };
    return { collect: (c) => listener?.(c), gcs: () => count, log, clock, young, stop };
  };
  const scavenge = { minor: true, forced: false };

  const burst = (collect: (c: Collection) => void, clock: { advance(ms: number): void }, n: number): void => {
    for (let i = 0; i < n; i++) {
      clock.advance(1_000);
      collect(scavenge);
    }
  };

  it('collects once, quietMs after the last scavenge of a burst, then nothing while nothing allocates', () => {
    const { collect, gcs, clock } = setUp();
    burst(collect, clock, 2);
    clock.advance(10_000);
    expect(gcs()).toBe(1);
    burst(collect, clock, 16);
    clock.advance(9_999);
    expect(gcs()).toBe(1);
    clock.advance(1);
    expect(gcs()).toBe(2);
    clock.advance(600_000);
    expect(gcs()).toBe(2);
    expect(clock.pending).toBe(0);
  });

  it('releases the start, leaves a later small burst (a rescan) to V8, and is not re-armed by its own or a full collection', () => {
    const { collect, gcs, clock } = setUp();
    clock.advance(60_000);
    expect(clock.pending).toBe(0);
    burst(collect, clock, 5);
    clock.advance(10_000);
    expect(gcs()).toBe(1);
    burst(collect, clock, 15);
    clock.advance(10_000);
    expect(gcs()).toBe(1);
    burst(collect, clock, 16);
    clock.advance(10_000);
    expect(gcs()).toBe(2);
    collect({ minor: false, forced: true });
    collect({ minor: true, forced: true });
    collect({ minor: false, forced: false });
    clock.advance(60_000);
    expect(gcs()).toBe(2);
    expect(clock.pending).toBe(0);
  });

  it('releases a start that scavenged not once (compiled from a code cache): quietMs after it began, then pages out', () => {
    const { gcs, clock, log } = setUp(true);
    clock.advance(9_999);
    expect(gcs()).toBe(0);
    clock.advance(1);
    expect(gcs()).toBe(1);
    clock.advance(60_000);
    expect(log).toEqual(['gc', 'page-out']);
    expect(clock.pending).toBe(0);
  });

  it("is not put off by the idle process's own scavenges (every 4 s), which never add up to a burst", () => {
    const { collect, gcs, clock } = setUp();
    burst(collect, clock, 4); // the start, its last scavenge at 4 s
    const idle = (seconds: number): void => {
      for (let t = 0; t < seconds; t += 4) {
        clock.advance(4_000);
        collect(scavenge);
      }
    };
    idle(8);
    clock.advance(1_999);
    expect(gcs()).toBe(0);
    clock.advance(1);
    expect(gcs()).toBe(1); // 10 s after the start's last scavenge, two idle ones later
    idle(600);
    clock.advance(1_000); // the burst's first scavenge 2 s after the last idle one
    burst(collect, clock, 15);
    clock.advance(60_000);
    expect(gcs()).toBe(1);
    idle(40);
    clock.advance(1_000);
    burst(collect, clock, 16);
    clock.advance(10_000);
    expect(gcs()).toBe(2);
  });

  it('trims the C heap a second after a release that found the young generation grown, never at a quiet start', () => {
    const { collect, log, clock, young } = setUp();
    burst(collect, clock, 5);
    clock.advance(10_000);
    clock.advance(60_000);
    expect(log).toEqual(['gc']);
    young(64 * MiB);
    burst(collect, clock, 15);
    clock.advance(60_000);
    expect(log).toEqual(['gc']);
    burst(collect, clock, 16);
    clock.advance(10_000);
    expect(log).toEqual(['gc', 'gc']);
    clock.advance(999);
    expect(log).toEqual(['gc', 'gc']);
    clock.advance(1);
    expect(log).toEqual(['gc', 'gc', 'trim']);
    young(8 * MiB);
    burst(collect, clock, 16);
    clock.advance(60_000);
    expect(log).toEqual(['gc', 'gc', 'trim', 'gc']);
    expect(clock.pending).toBe(0);
  });

  it('trims after the start when calls began before it went quiet (the young generation grew), and stops the trim', () => {
    const { collect, log, clock, young, stop } = setUp();
    young(64 * MiB);
    burst(collect, clock, 12);
    clock.advance(10_000);
    clock.advance(1_000);
    expect(log).toEqual(['gc', 'trim']);
    burst(collect, clock, 20);
    clock.advance(10_000);
    expect(log).toEqual(['gc', 'trim', 'gc']);
    stop();
    clock.advance(60_000);
    expect(log).toEqual(['gc', 'trim', 'gc']);
    expect(clock.pending).toBe(0);
  });

  it('pages the code out a second after every release, the quiet start included, after the trim when one is due', () => {
    const { collect, log, clock, young, stop } = setUp(true);
    burst(collect, clock, 5);
    clock.advance(10_000);
    expect(log).toEqual(['gc']);
    clock.advance(999);
    expect(log).toEqual(['gc']);
    clock.advance(1);
    expect(log).toEqual(['gc', 'page-out']);
    clock.advance(60_000);
    young(64 * MiB);
    burst(collect, clock, 16);
    clock.advance(11_000);
    expect(log).toEqual(['gc', 'page-out', 'gc', 'trim', 'page-out']);
    // A small burst (a rescan) is left to V8: no collection, nothing paged out.
    burst(collect, clock, 3);
    clock.advance(60_000);
    expect(log).toEqual(['gc', 'page-out', 'gc', 'trim', 'page-out']);
    young(8 * MiB);
    burst(collect, clock, 16);
    clock.advance(10_500);
    stop();
    clock.advance(60_000);
    expect(log).toEqual(['gc', 'page-out', 'gc', 'trim', 'page-out', 'gc']);
    expect(clock.pending).toBe(0);
  });

  it('stops: no timer left, later collections ignored', () => {
    const { collect, gcs, clock, stop } = setUp();
    burst(collect, clock, 20);
    stop();
    collect(scavenge);
    clock.advance(60_000);
    expect(gcs()).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe('memoryReducingGc', () => {
  it("asks V8 for four synchronous, memory-reducing full collections (old bytecode aged out); none without --expose-gc's gc", () => {
    const calls: unknown[] = [];
    memoryReducingGc((options: unknown) => calls.push(options))?.();
    expect(calls).toEqual(Array(4).fill({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
    expect(memoryReducingGc(undefined)).toBeUndefined();
  });
});

describe('observeCollections', () => {
  it('reports a scavenge of V8 as minor and not forced', async () => {
    const seen: Collection[] = [];
    let done: () => void = () => undefined;
    const scavenged = new Promise<void>((resolve) => {
      done = resolve;
    });
    const stop = observeCollections((c) => {
      seen.push(c);
      if (c.minor && !c.forced) done();
    });
    // Allocate until the young generation fills (a few MB) and V8 scavenges.
    const keep: unknown[] = [];
    const timer = setInterval(() => {
      for (let i = 0; i < 50_000; i++) keep.push({ i });
      keep.length = 0;
    }, 1);
    try {
      await scavenged;
    } finally {
      clearInterval(timer);
      stop();
    }
    expect(seen.some((c) => c.minor && !c.forced)).toBe(true);
  });
});
