import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { DRA_SOAK_KINDS, draSoakPassed, runDraSoak, scheduleDraSoak, type DraSoakResult } from './dra-soak';
import { formatDraSoakReport } from './dra-soak-report';
import { createSoakRandom } from './soak-random';

// The soak of `nx run e2e-chaos:soak --dra`, short: kdp-device-plugins --mode dra with all five drivers, freshly
// bundled from its sources, through 12 seeded faults (every kind) on the demo's sample node against the DRA
// playground.

const REPO = join(__dirname, '..', '..', '..');

describe('scheduleDraSoak', () => {
  it('runs every kind first, then draws, the same for a seed', () => {
    const schedule = scheduleDraSoak(createSoakRandom(3), 100);
    expect(schedule).toHaveLength(100);
    expect([...schedule.slice(0, DRA_SOAK_KINDS.length)].sort()).toEqual([...DRA_SOAK_KINDS].sort());
    expect(scheduleDraSoak(createSoakRandom(3), 100)).toEqual(schedule);
  });
});

describe('runDraSoak on kdp-device-plugins --mode dra', () => {
  let result: DraSoakResult;

  beforeAll(async () => {
    const bundle = bundleEntry(join(REPO, 'packages', 'device-plugins', 'src', 'main.ts'), {
      // Inside the workspace, so the native addons left out of the bundle resolve from its node_modules.
      outfile: join(__dirname, '..', 'dist', 'spec', 'device-plugins-dra.js'),
      external: ['koffi', 'usb'],
    });
    result = await runDraSoak({ bundle: bundle.path, cycles: 12, seed: 18, maxMs: 5 * 60_000 });
  }, 600_000);

  it('runs every kind of fault and runs pods', () => {
    expect(result.cycles).toBe(12);
    for (const kind of DRA_SOAK_KINDS) expect(result.kinds[kind].count).toBeGreaterThan(0);
    expect(result.podsCreated).toBeGreaterThan(0);
    expect(result.conflictsInjected).toBeGreaterThan(0);
  });

  it('loses no claim, allocates no device twice, sees no crash and exits cleanly', () => {
    const failures = {
      lost: result.lost,
      doubleAllocated: result.doubleAllocated,
      crashes: result.crashes,
      finalExit: result.finalExit?.code,
    };
    expect({ failures, report: draSoakPassed(result) ? '' : formatDraSoakReport(result) }).toEqual({
      failures: { lost: [], doubleAllocated: [], crashes: [], finalExit: 0 },
      report: '',
    });
  });
});
