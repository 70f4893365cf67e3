import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeClock } from '@kdp/kubelet-sim';
import { createScanScheduler } from './scan-scheduler';

/** A scan that waits until released, so tests decide when it ends. */
function gatedScan() {
  const started: Array<() => void> = [];
  let count = 0;
  let running = 0;
  let most = 0;
  const scan = (): Promise<void> => {
    count += 1;
    running += 1;
    most = Math.max(most, running);
    return new Promise<void>((resolve) =>
      started.push(() => {
        running -= 1;
        resolve();
      }),
    );
  };
  return {
    scan,
    release: () => started.shift()?.(),
    get count() {
      return count;
    },
    get most() {
      return most;
    },
  };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createScanScheduler', () => {
  it('never overlaps scans and folds any number of requests during a scan into one more', async () => {
    const clock = createFakeClock();
    const gate = gatedScan();
    const events: string[] = [];
    const scheduler = createScanScheduler({
      scan: gate.scan,
      intervalMs: () => 1000,
      watch: () => [],
      clock,
      observe: (event) => events.push(event),
    });
    const first = scheduler.start();
    await flush();
    expect(gate.count).toBe(1);
    for (let i = 0; i < 5; i++) scheduler.rescan();
    gate.release();
    await flush();
    await flush(); // the scheduler yields to I/O between a scan and the one folded after it
    expect(gate.count).toBe(2);
    gate.release();
    await first;
    expect([gate.count, gate.most]).toEqual([2, 1]);
    expect(events).toEqual(['start', 'rescan']); // the folded scan is counted once, under what asked for it
    await scheduler.stop();
  });

  it('scans again one interval after the last scan ended, and not after stop', async () => {
    const clock = createFakeClock();
    let count = 0;
    const scheduler = createScanScheduler({
      scan: async () => void (count += 1),
      intervalMs: () => 500,
      watch: () => [],
      clock,
    });
    await scheduler.start();
    clock.advance(499);
    await flush();
    expect(count).toBe(1);
    clock.advance(1);
    await flush();
    expect(count).toBe(2);
    await scheduler.stop();
    clock.advance(10_000);
    await flush();
    expect([count, clock.pending]).toEqual([2, 0]);
  });

  it('with a change probe, an interval tick scans only when the probe saw a change; rescan() always scans', async () => {
    const clock = createFakeClock();
    let count = 0;
    let changed = false;
    let probes = 0;
    const events: string[] = [];
    const scheduler = createScanScheduler({
      scan: async () => void (count += 1),
      intervalMs: () => 500,
      watch: () => [],
      clock,
      changed: () => {
        probes += 1;
        if (probes === 4) throw new Error('unreadable');
        return changed;
      },
      observe: (event) => events.push(event),
    });
    await scheduler.start();
    for (let i = 0; i < 2; i++) {
      clock.advance(500);
      await flush();
    }
    expect([count, probes]).toEqual([1, 2]);
    changed = true;
    clock.advance(500);
    await flush();
    expect([count, probes]).toEqual([2, 3]);
    changed = false;
    clock.advance(500); // the probe throws: a probe that cannot run says nothing, so a scan runs
    await flush();
    expect([count, probes]).toEqual([3, 4]);
    scheduler.rescan();
    await flush();
    expect([count, probes]).toEqual([4, 4]);
    expect(events).toEqual(['start', 'unchanged', 'unchanged', 'probe', 'probe', 'rescan']);
    await scheduler.stop();
  });

  it('scans on a change in a watched directory, and watches a directory once it appears', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kdp-sched-'));
    const later = join(root, 'later');
    try {
      const clock = createFakeClock();
      let count = 0;
      let notify: () => void = () => undefined;
      const scanned = (): Promise<void> => new Promise((resolve) => (notify = resolve));
      const scheduler = createScanScheduler({
        scan: async () => {
          count += 1;
          notify();
        },
        intervalMs: () => 3_600_000,
        watch: () => [root, later],
        clock,
      });
      await scheduler.start();
      expect(scheduler.watching()).toEqual([root]);
      let next = scanned();
      mkdirSync(later);
      await next;
      await flush();
      expect(scheduler.watching()).toEqual([root, later]);
      next = scanned();
      const before = count;
      writeFileSync(join(later, 'device'), 'x');
      await next;
      expect(count).toBeGreaterThan(before);
      await scheduler.stop();
      expect(scheduler.watching()).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
