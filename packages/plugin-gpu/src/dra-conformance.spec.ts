import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode } from '@kdp/dra';
import { runDraConformance, type DraConformanceReady } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine } from './testing/machines';

// "The GPU driver passes `kubelet-sim check --dra`": the DRA suite, strict, against `gpu-device-plugin serve
// --mode dra` run in this process on the NVIDIA fixture, restarted by the suite for `plugin-restart` and
// "rebooted" for `node-reboot` (a new boot ID in the fixture's procfs, the CDI directory emptied).
describe('kubelet-sim check --dra of gpu-device-plugin serve --mode dra', () => {
  let fixture: SysfsFixture;
  let base: string;
  let run: PluginRun | undefined;

  beforeAll(() => {
    fixture = buildNvidiaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-gdc-'));
  });
  afterAll(async () => {
    await run?.stop();
    fixture.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, plugin restart, node reboot and the standard PCI attributes included', async () => {
    const [registry, plugins, cdiDir] = ['plugins_registry', 'plugins', 'cdi'].map((name) =>
      join(base, name),
    );
    for (const dir of [registry, plugins, cdiDir]) mkdirSync(dir as string);
    // Device nodes in the CDI edits as well as NVIDIA_VISIBLE_DEVICES, so that the CDI checks have a spec.
    const config = join(base, 'gpu.yaml');
    writeFileSync(config, 'nvidia:\n  passDeviceSpecs: true\n');
    const mode = { dra: createDraServeMode({ sliceDebounceMs: 10 }) };
    const bootIdFile = join(fixture.procRoot, 'sys/kernel/random/boot_id');
    mkdirSync(join(bootIdFile, '..'), { recursive: true });
    writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000001\n');
    let argv: readonly string[] = [];
    const start = (ready: DraConformanceReady): void => {
      const kubeconfig = join(base, 'kubeconfig');
      const cluster = { server: ready.apiServer.url };
      writeFileSync(
        kubeconfig,
        JSON.stringify({
          'current-context': 'c',
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
          clusters: [{ name: 'c', cluster }],
          users: [{ name: 'u', user: {} }],
        }),
      );
      argv = [
        ...['serve', '--mode', 'dra', ...rootFlags(fixture), '--config', config, '--poll-interval', '1h'],
        ...['--node-name', ready.nodeName, '--kubeconfig', kubeconfig, '--cdi-dir', cdiDir as string],
        ...['--plugins-registry-dir', registry as string, '--dra-plugins-dir', plugins as string],
      ];
      run = startPluginRun(gpuPlugin, argv, { modes: mode });
    };

    const report = await runDraConformance({
      driver: 'gpu.kdp.dev',
      pluginsRegistryDir: registry as string,
      nodeName: 'node-g',
      cdiDir: cdiDir as string,
      dir: join(base, 'kubelet'),
      strict: true,
      onReady: start,
      restartPlugin: async () => {
        await run?.stop();
        run = startPluginRun(gpuPlugin, argv, { modes: mode });
      },
      rebootNode: async () => {
        await run?.stop();
        writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000002\n');
        for (const name of readdirSync(cdiDir as string))
          rmSync(join(cdiDir as string, name), { recursive: true, force: true });
        run = startPluginRun(gpuPlugin, argv, { modes: mode });
      },
    });

    const notPassed = report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.reason}`]));
    if (notPassed.length > 0) process.stderr.write(run?.stderr() ?? '');
    expect(notPassed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.id === 'standard-attributes')?.reason).toBe(
      '5 PCI device(s) with both attributes',
    );
    // After the restart the claim has the device and both CDI IDs it had (its device's and the claim's env).
    const reasonOf = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.reason;
    expect(reasonOf('plugin-restart')).toMatch(
      /^node-g\/nvidia\.com\/gpu\/\S+ \[gpu\.kdp\.dev\/claim=\S+, \S+\]$/,
    );
    expect(reasonOf('plugin-restart')).toBe(reasonOf('prepare-idempotent'));
    // After the reboot: the same devices and CDI IDs, and the specs (device and claim) written again.
    expect(reasonOf('node-reboot')).toBe(`${reasonOf('prepare-idempotent')}, CDI specs written again`);
    expect(run?.stderr()).toMatch(/the node rebooted since the checkpoint was written/);
  }, 120_000);
});
