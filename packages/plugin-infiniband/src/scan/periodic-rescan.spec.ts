import { createFakeClock } from '@kdp/kubelet-sim';
import { periodicRescanMs, startPeriodicRescan, type PeriodicRescanContext } from './periodic-rescan';

describe('startPeriodicRescan (periodicUpdateInterval)', () => {
  const start = (config: { periodicUpdateInterval?: number }, command: 'serve' | 'discover' = 'serve') => {
    const clock = createFakeClock();
    const abort = new AbortController();
    const logs: string[] = [];
    let rescans = 0;
    const ctx: PeriodicRescanContext = {
      command,
      config,
      clock,
      signal: abort.signal,
      logger: { info: (_fields, message) => logs.push(message) },
      rescan: () => (rescans += 1),
    };
    startPeriodicRescan(ctx);
    return { clock, abort, logs, rescans: () => rescans };
  };

  it('rescans every periodicUpdateInterval seconds, 60 s when absent, never when 0 (as upstream)', () => {
    expect(periodicRescanMs({})).toBe(60_000);
    expect(periodicRescanMs({ periodicUpdateInterval: 300 })).toBe(300_000);
    expect(periodicRescanMs({ periodicUpdateInterval: 0 })).toBeUndefined();
    const run = start({ periodicUpdateInterval: 300 });
    run.clock.advance(299_999);
    expect(run.rescans()).toBe(0);
    run.clock.advance(1);
    expect(run.rescans()).toBe(1);
    run.clock.advance(600_000);
    expect(run.rescans()).toBe(3);
    expect(run.logs).toEqual(['periodicUpdateInterval: a full rescan every 300s besides the change probe']);
    const off = start({ periodicUpdateInterval: 0 });
    off.clock.advance(3_600_000);
    expect(off.rescans()).toBe(0);
  });

  it('follows a reload from the next tick, stops with the signal, and does nothing in discover', () => {
    const config: { periodicUpdateInterval?: number } = { periodicUpdateInterval: 0 };
    const run = start(config);
    config.periodicUpdateInterval = 10;
    run.clock.advance(60_000 + 10_000);
    expect(run.rescans()).toBe(1);
    expect(run.logs).toEqual([
      'periodicUpdateInterval 0: no periodic full rescan (the change probe still runs)',
      'periodicUpdateInterval: a full rescan every 10s besides the change probe',
    ]);
    run.abort.abort();
    expect(run.clock.pending).toBe(0);
    const discover = start({}, 'discover');
    expect(discover.clock.pending).toBe(0);
  });
});
