import { createFakeClock } from '@kdp/kubelet-sim';
import { createPollingSource, type ScanTrigger } from './polling-source';
import type { PluginDevice } from './plugin-device';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('createPollingSource', () => {
  it('scans at subscribe, then every interval, and stops when the last subscriber leaves', async () => {
    const clock = createFakeClock();
    let n = 0;
    const scan = jest.fn((): PluginDevice[] => [{ id: `d${n++}`, health: 'Healthy' }]);
    const source = createPollingSource({ scan, intervalMs: 500, clock });
    const lists: string[] = [];
    const stop = source.subscribe((list) => lists.push(list[0]?.id ?? ''));
    await flush();
    expect(lists).toEqual(['d0']);
    clock.advance(499);
    await flush();
    expect(lists).toEqual(['d0']);
    clock.advance(1);
    await flush();
    expect(lists).toEqual(['d0', 'd1']);
    stop();
    clock.advance(5000);
    await flush();
    expect(scan).toHaveBeenCalledTimes(2);
    expect(clock.pending).toBe(0);
  });

  it('defaults to a one-second interval', async () => {
    const clock = createFakeClock();
    const scan = jest.fn((): PluginDevice[] => []);
    createPollingSource({ scan, clock }).subscribe(() => undefined);
    await flush();
    clock.advance(1000);
    await flush();
    expect(scan).toHaveBeenCalledTimes(2);
  });

  it('scans at once when a trigger fires, never overlapping scans, and keeps the last list when a scan throws', async () => {
    const clock = createFakeClock();
    let fire: () => void = () => undefined;
    const trigger: ScanTrigger = (f) => {
      fire = f;
      return () => (fire = () => undefined);
    };
    let release: () => void = () => undefined;
    let calls = 0;
    const errors: unknown[] = [];
    const scan = async (): Promise<PluginDevice[]> => {
      calls += 1;
      if (calls === 2) await new Promise<void>((resolve) => (release = resolve));
      if (calls === 3) throw new Error('sysfs went away');
      return [{ id: `c${calls}`, health: 'Healthy' }];
    };
    const source = createPollingSource({
      scan,
      clock,
      intervalMs: 60_000,
      triggers: [trigger],
      onError: (e) => errors.push(e),
    });
    const lists: string[] = [];
    source.subscribe((list) => lists.push(list[0]?.id ?? ''));
    await flush();
    fire(); // scan 2 starts and blocks
    await flush();
    fire(); // while scan 2 runs: queued, not concurrent
    fire();
    expect(calls).toBe(2);
    release();
    await flush();
    await flush();
    expect(calls).toBe(3); // exactly one queued re-scan, which throws
    expect(errors).toHaveLength(1);
    expect(lists).toEqual(['c1', 'c2']);
  });
});
