import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode } from '@kdp/dra';
import { runDraConformance, type DraConformanceReady } from '@kdp/kubelet-sim';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3, type FpgaFixture } from './testing/create-fpga-fixture';
import { programmingConfig, writeFakeProgrammer } from './testing/fake-programmer';

// `kubelet-sim check --dra` of `fpga-device-plugin serve --mode dra` in region mode with a programming rule, run
// in this process on two DFL cards: the rule's programming (PreStartContainer in the device-plugin mode) is done
// by NodePrepareResources.
describe('kubelet-sim check --dra of fpga-device-plugin serve --mode dra', () => {
  let fx: FpgaFixture;
  let base: string;
  let run: PluginRun | undefined;

  beforeAll(() => {
    fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB3 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    base = mkdtempSync(join(tmpdir(), 'kdp-fdc-'));
  });
  afterAll(async () => {
    await run?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every check, driver restart and node reboot included, and prepare programs the region with the rule', async () => {
    const [registry, plugins, cdiDir] = ['plugins_registry', 'plugins', 'cdi'].map((name) =>
      join(base, name),
    );
    for (const dir of [registry, plugins, cdiDir]) mkdirSync(dir as string);
    const afuFile = join(fx.root, fx.pciDir('0000:81:00.0'), 'fpga_region/region0/dfl-port.0/afu_id');
    const fake = writeFakeProgrammer(fx, NLB0);
    const config = join(base, 'fpga.yaml');
    writeFileSync(config, programmingConfig(fake, afuFile, NLB0));
    // The node's boot ID, which the suite's reboot changes (and empties the CDI directory, a tmpfs).
    const bootIdFile = join(join(base, 'proc'), 'sys/kernel/random/boot_id');
    mkdirSync(join(bootIdFile, '..'), { recursive: true });
    writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000001\n');
    const mode = { dra: createDraServeMode({ sliceDebounceMs: 10, procRoot: join(base, 'proc') }) };
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
        ...['serve', '--mode', 'dra', '--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--config', config],
        ...['--poll-interval', '1h', '--node-name', ready.nodeName, '--kubeconfig', kubeconfig],
        ...['--cdi-dir', cdiDir as string, '--plugins-registry-dir', registry as string],
        ...['--dra-plugins-dir', plugins as string],
      ];
      run = startPluginRun(fpgaPlugin, argv, { modes: mode });
    };

    const report = await runDraConformance({
      driver: 'fpga.kdp.dev',
      pluginsRegistryDir: registry as string,
      nodeName: 'node-f',
      cdiDir: cdiDir as string,
      dir: join(base, 'kubelet'),
      strict: true,
      onReady: start,
      restartPlugin: async () => {
        await run?.stop();
        run = startPluginRun(fpgaPlugin, argv, { modes: mode });
      },
      rebootNode: async () => {
        await run?.stop();
        writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000002\n');
        for (const name of readdirSync(cdiDir as string))
          rmSync(join(cdiDir as string, name), { recursive: true, force: true });
        run = startPluginRun(fpgaPlugin, argv, { modes: mode });
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
    // The rule ran in NodePrepareResources: the fake programmer loaded NLB0 into the region's port.
    expect(fake.runs().length).toBeGreaterThan(0);
    expect(readFileSync(afuFile, 'utf8').trim()).toBe(NLB0);
  }, 120_000);
});
