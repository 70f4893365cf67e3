import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from './testing/gpu-machines';
import { rootFlags } from './testing/run-cli';
import { buildBundle, spawnPlugin } from './testing/spawn-plugin';

// "Passes `kubelet-sim check`": the conformance suite against the real `gpu-device-plugin serve` bundle.
describe('kubelet-sim conformance of gpu-device-plugin serve', () => {
  beforeAll(() => buildBundle());

  const cases: Array<[string, () => SysfsFixture, string]> = [
    ['NVIDIA', buildNvidiaMachine, 'nvidia.com/gpu'],
    ['AMD', buildAmdMachine, 'amd.com/gpu'],
    ['Intel', buildIntelMachine, 'gpu.intel.com/i915'],
  ];
  it.each(cases)(
    '%s fixture: every check passes, SIGTERM included',
    async (_vendor, build, resource) => {
      const fixture = build();
      const dir = mkdtempSync(join(tmpdir(), 'kdp-gc-'));
      const plugin = spawnPlugin(['serve', ...rootFlags(fixture), '--device-plugin-dir', dir]);
      try {
        const report = await runConformance({ dir, resource, pid: plugin.child.pid ?? 0, restarts: 1 });
        const failed = report.checks.filter((check) => check.status === 'fail');
        if (failed.length > 0) process.stderr.write(plugin.stderr());
        expect(failed).toEqual([]);
        expect(report.ok).toBe(true);
        expect(report.checks.length).toBeGreaterThanOrEqual(15);
        // The suite's last check sent SIGTERM itself; a second one could race the shutdown.
        expect(await plugin.exited).toBe(0);
        expect(readdirSync(dir).filter((name) => name.endsWith('.sock') && name !== 'kubelet.sock')).toEqual(
          [],
        );
      } finally {
        await plugin.stop();
        fixture.remove();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
