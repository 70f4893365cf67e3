import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode } from '@kdp/dra';
import { runDraConformance, type DraConformanceReady } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

// `kubelet-sim check --dra` of `sriov-device-plugin serve --mode dra` on the two-PF node with the upstream
// config, run in this process: NodePrepareResources writes the Multus device-info file, as Allocate does.
describe('kubelet-sim check --dra of sriov-device-plugin serve --mode dra', () => {
  let fx: SysfsFixture;
  let base: string;
  let run: PluginRun | undefined;

  beforeAll(() => {
    fx = createSysfsFixture();
    addTwoPfNode(fx);
    base = mkdtempSync(join(tmpdir(), 'kdp-sdc-'));
  });
  afterAll(async () => {
    await run?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included, and prepare writes the device-info file', async () => {
    const [registry, plugins, cdiDir] = ['plugins_registry', 'plugins', 'cdi'].map((name) =>
      join(base, name),
    );
    for (const dir of [registry, plugins, cdiDir]) mkdirSync(dir as string);
    const config = join(base, 'config.json');
    writeFileSync(config, UPSTREAM_CONFIG);
    const devinfo = join(base, 'devinfo');
    let infoFiles: string[] = [];
    // The node's boot ID, which the suite's reboot changes (and empties the CDI directory, a tmpfs).
    const bootIdFile = join(fx.procRoot, 'sys/kernel/random/boot_id');
    mkdirSync(join(bootIdFile, '..'), { recursive: true });
    writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000001\n');
    const mode = { dra: createDraServeMode({ sliceDebounceMs: 10 }) };
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
        ...[
          'serve',
          '--mode',
          'dra',
          '--sysfs-root',
          fx.root,
          '--proc-root',
          fx.procRoot,
          '--dev-root',
          fx.devRoot,
        ],
        ...['--poll-interval', '1h', '--node-name', ready.nodeName, '--kubeconfig', kubeconfig],
        ...['--cdi-dir', cdiDir as string, '--plugins-registry-dir', registry as string],
        ...['--dra-plugins-dir', plugins as string, '--config', config, '--devinfo-dir', devinfo],
      ];
      run = startPluginRun(sriovPlugin, argv, { modes: mode });
    };

    const report = await runDraConformance({
      driver: 'sriov.kdp.dev',
      pluginsRegistryDir: registry as string,
      nodeName: 'node-s',
      cdiDir: cdiDir as string,
      dir: join(base, 'kubelet'),
      strict: true,
      // The Multus device-info files there once the claim is prepared (a stop removes them, as in device-plugin mode).
      onCheck: (check) => {
        if (check.id === 'prepare') infoFiles = readdirSync(devinfo, { recursive: true }).map(String);
      },
      onReady: start,
      restartPlugin: async () => {
        await run?.stop();
        run = startPluginRun(sriovPlugin, argv, { modes: mode });
      },
      rebootNode: async () => {
        await run?.stop();
        writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000002\n');
        for (const name of readdirSync(cdiDir as string))
          rmSync(join(cdiDir as string, name), { recursive: true, force: true });
        run = startPluginRun(sriovPlugin, argv, { modes: mode });
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
    // NodePrepareResources wrote the prepared VF's device-info file (the afterAllocate hook of Allocate).
    expect(infoFiles.filter((name) => name.endsWith('.json'))).toHaveLength(1);
  }, 120_000);
});
