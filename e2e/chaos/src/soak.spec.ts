import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { runSoak, scheduleSoak, soakPassed, SOAK_KINDS, type SoakResult } from './soak';
import { formatSoakReport } from './soak-report';
import { createSoakRandom } from './soak-random';

// The soak of `nx run e2e-chaos:soak`, short: kdp-device-plugins with all five plugins, freshly bundled from its
// sources, through 28 seeded disruptions of every kind on the demo's sample node against kubelet-sim.

const REPO = join(__dirname, '..', '..', '..');

describe('scheduleSoak', () => {
  it('runs every kind first, then draws; no SIGKILL in the second half', () => {
    for (const seed of [1, 2, 3]) {
      const schedule = scheduleSoak(createSoakRandom(seed), 200);
      expect(schedule).toHaveLength(200);
      expect([...schedule.slice(0, SOAK_KINDS.length)].sort()).toEqual([...SOAK_KINDS].sort());
      expect(schedule.slice(100)).not.toContain('plugin-kill');
      expect(schedule.slice(SOAK_KINDS.length, 100)).toContain('plugin-kill');
    }
  });

  it('repeats a schedule for a seed', () => {
    expect(scheduleSoak(createSoakRandom(9), 50)).toEqual(scheduleSoak(createSoakRandom(9), 50));
  });
});

describe('runSoak on kdp-device-plugins', () => {
  let result: SoakResult;

  beforeAll(async () => {
    const bundle = bundleEntry(join(REPO, 'packages', 'device-plugins', 'src', 'main.ts'), {
      // Inside the workspace, so the native addons left out of the bundle resolve from its node_modules.
      outfile: join(__dirname, '..', 'dist', 'spec', 'device-plugins.js'),
      external: ['koffi', 'usb'],
    });
    result = await runSoak({ bundle: bundle.path, cycles: 28, seed: 18, maxMs: 10 * 60_000 });
  }, 600_000);

  it('runs every kind of disruption', () => {
    expect(result.cycles).toBe(28);
    for (const kind of SOAK_KINDS) expect(result.kinds[kind].count).toBeGreaterThan(0);
    expect(result.allocations.admitted).toBeGreaterThan(0);
  });

  it('loses no registration, sees no crash, misses no change and exits cleanly', () => {
    const failures = {
      lost: result.lost,
      crashes: result.crashes,
      missed: result.missed,
      unexpectedAllocateErrors: result.allocations.unexpected,
      finalExit: result.finalExit?.code,
    };
    expect({ failures, report: soakPassed(result) ? '' : formatSoakReport(result) }).toEqual({
      failures: { lost: [], crashes: [], missed: [], unexpectedAllocateErrors: [], finalExit: 0 },
      report: '',
    });
  });

  it('measures the process after every cycle', () => {
    expect(result.usage.map((sample) => sample.cycle)).toEqual(Array.from({ length: 29 }, (_, i) => i));
    expect(result.usage.every((s) => s.rssMiB > 0 && s.fds > 0 && (s.heapMiB ?? 0) > 0)).toBe(true);
  });
});
