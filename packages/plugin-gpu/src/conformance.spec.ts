import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle } from '@kdp/kubelet-sim/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { rootFlags } from './testing/fixture-devices';
import { buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from './testing/machines';

// "Passes `kubelet-sim check`": the conformance suite against the real `gpu-device-plugin serve` bundle.
let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'), { external: ['koffi'] });
}, 60_000);
afterAll(() => bundle.remove());

describe('kubelet-sim conformance of gpu-device-plugin serve', () => {
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
      const plugin = spawnPlugin(bundle.path, ['serve', ...rootFlags(fixture), '--device-plugin-dir', dir]);
      try {
        // Strict: every recommended practice too. Only PreStartContainer does not apply (not required).
        const report = await runConformance({ dir, resource, pid: plugin.child.pid ?? 0, strict: true });
        const failed = report.checks.flatMap((c) => (c.status === 'fail' ? [`${c.id}: ${c.reason}`] : []));
        if (failed.length > 0) process.stderr.write(plugin.stderr());
        expect(failed).toEqual([]);
        expect(report.ok).toBe(true);
        expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([
          'pre-start-container: skip',
        ]);
        // An unknown ID is refused with a message a pod event can show: it names the ID.
        expect(report.checks.find((check) => check.id === 'allocate-unknown-id')?.reason).toContain(
          'kubelet-sim-conformance-no-such-device',
        );
        // The suite's last check sent SIGTERM itself; a second one could race the shutdown.
        expect(await plugin.exited).toEqual([0, null]);
        expect(readdirSync(dir).filter((name) => name.endsWith('.sock') && name !== 'kubelet.sock')).toEqual(
          [],
        );
      } finally {
        await plugin.kill();
        fixture.remove();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
