import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode } from '@kdp/dra';
import { runDraConformance, type DraConformanceReady } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { infinibandPlugin } from './plugin';
import { createRdmaMachine } from './testing/rdma-machine';

// `kubelet-sim check --dra` of `infiniband-device-plugin serve --mode dra` (exclusive mode) on the fixture
// machine, run in this process.
describe('kubelet-sim check --dra of infiniband-device-plugin serve --mode dra', () => {
  let fx: SysfsFixture;
  let base: string;
  let run: PluginRun | undefined;

  beforeAll(() => {
    fx = createRdmaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-idc-'));
  });
  afterAll(async () => {
    await run?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included', async () => {
    const [registry, plugins, cdiDir] = ['plugins_registry', 'plugins', 'cdi'].map((name) =>
      join(base, name),
    );
    for (const dir of [registry, plugins, cdiDir]) mkdirSync(dir as string);
    // The node's boot ID, which the suite's reboot changes (and empties the CDI directory, a tmpfs).
    const bootIdFile = join(fx.procRoot, 'sys/kernel/random/boot_id');
    mkdirSync(join(bootIdFile, '..'), { recursive: true });
    writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000001\n');
    const mode = { dra: createDraServeMode({ sliceDebounceMs: 10, procRoot: fx.procRoot }) };
    let argv: readonly string[] = [];
    const start = (ready: DraConformanceReady): void => {
      const kubeconfig = join(base, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        JSON.stringify({
          'current-context': 'c',
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
          clusters: [{ name: 'c', cluster: { server: ready.apiServer.url } }],
          users: [{ name: 'u', user: {} }],
        }),
      );
      argv = [
        ...['serve', '--mode', 'dra', '--sysfs-root', fx.root, '--dev-root', fx.devRoot],
        ...['--poll-interval', '1h', '--node-name', ready.nodeName, '--kubeconfig', kubeconfig],
        ...['--cdi-dir', cdiDir as string, '--plugins-registry-dir', registry as string],
        ...['--dra-plugins-dir', plugins as string],
      ];
      run = startPluginRun(infinibandPlugin, argv, { modes: mode });
    };

    const report = await runDraConformance({
      driver: 'infiniband.kdp.dev',
      pluginsRegistryDir: registry as string,
      nodeName: 'node-i',
      cdiDir: cdiDir as string,
      dir: join(base, 'kubelet'),
      strict: true,
      onReady: start,
      restartPlugin: async () => {
        await run?.stop();
        run = startPluginRun(infinibandPlugin, argv, { modes: mode });
      },
      rebootNode: async () => {
        await run?.stop();
        writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000002\n');
        for (const name of readdirSync(cdiDir as string))
          rmSync(join(cdiDir as string, name), { recursive: true, force: true });
        run = startPluginRun(infinibandPlugin, argv, { modes: mode });
      },
    });

    // Every check passes, strict; a failed one shows its reason and the driver's log.
    const notPassed = report.checks.flatMap((c) =>
      c.status === 'pass' ? [] : [`${c.id}: ${c.status}${c.status === 'fail' ? ` (${c.reason})` : ''}`],
    );
    if (report.checks.some((c) => c.status === 'fail')) process.stderr.write(run?.stderr() ?? '');
    expect(notPassed).toEqual([]);
    // After the reboot the claim has what it had, its CDI specs written again.
    const reasonOf = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.reason;
    expect(reasonOf('node-reboot')).toBe(`${reasonOf('prepare-idempotent')}, CDI specs written again`);
    expect(report.ok).toBe(true);
  }, 120_000);
});
