import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode } from '@kdp/dra';
import { runDraConformance } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

// "The USB driver passes `kubelet-sim check --dra`": the DRA suite against `usb-device-plugin serve --mode dra`
// run in this process, restarted by the suite for `plugin-restart` and "rebooted" for `node-reboot` (a new boot
// ID in a procfs of its own: the USB plugin takes no --proc-root, so the DRA mode is given one; CDI emptied).
describe('kubelet-sim check --dra of usb-device-plugin serve --mode dra', () => {
  let usb: UsbFixture;
  let base: string;
  let run: PluginRun | undefined;

  beforeAll(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    base = mkdtempSync(join(tmpdir(), 'kdp-udc-'));
  });
  afterAll(async () => {
    await run?.stop();
    usb.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every required check, plugin restart and node reboot included', async () => {
    const registry = join(base, 'plugins_registry');
    const plugins = join(base, 'plugins');
    const cdiDir = join(base, 'cdi');
    for (const dir of [registry, plugins, cdiDir]) mkdirSync(dir);
    const config = join(base, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
    const kubeconfig = join(base, 'kubeconfig');
    let argv: string[] = [];
    const procRoot = join(base, 'proc');
    const bootIdFile = join(procRoot, 'sys/kernel/random/boot_id');
    mkdirSync(join(bootIdFile, '..'), { recursive: true });
    writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000001\n');
    const start = (): PluginRun =>
      startPluginRun(usbPlugin, argv, {
        modes: { dra: createDraServeMode({ sliceDebounceMs: 10, procRoot }) },
      });

    const report = await runDraConformance({
      driver: 'usb.kdp.dev',
      pluginsRegistryDir: registry,
      nodeName: 'node-u',
      cdiDir,
      dir: join(base, 'kubelet'),
      onReady: ({ apiServer, nodeName }) => {
        writeFileSync(
          kubeconfig,
          JSON.stringify({
            'current-context': 'sim',
            contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'sim' } }],
            clusters: [{ name: 'sim', cluster: { server: apiServer.url } }],
            users: [{ name: 'sim', user: {} }],
          }),
        );
        argv = [
          ...['serve', '--mode', 'dra', '--node-name', nodeName, '--kubeconfig', kubeconfig],
          ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
          ...['--config', config, '--poll-interval', '1h', '--cdi-dir', cdiDir],
          ...['--plugins-registry-dir', registry, '--dra-plugins-dir', plugins],
        ];
        run = start();
      },
      restartPlugin: async () => {
        await run?.stop();
        run = start();
      },
      rebootNode: async () => {
        await run?.stop();
        writeFileSync(bootIdFile, 'b0b0b0b0-0000-4000-8000-000000000002\n');
        for (const name of readdirSync(cdiDir)) rmSync(join(cdiDir, name), { recursive: true, force: true });
        run = start();
      },
    });

    const failed = report.checks.flatMap((c) => (c.status === 'fail' ? [`${c.id}: ${c.reason}`] : []));
    if (failed.length > 0) process.stderr.write(run?.stderr() ?? '');
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    // USB devices have no PCI address of their own (their `controller` attribute names the host controller's):
    // the standard-attributes check does not apply.
    expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([
      'standard-attributes: skip',
    ]);
    const reasonOf = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.reason;
    expect(reasonOf('plugin-restart')).toMatch(/^node-u\/example\.com\/[a-z]+\/\S+ \[usb\.kdp\.dev\/claim=/);
    expect(reasonOf('plugin-restart')).toBe(reasonOf('prepare-idempotent'));
    expect(reasonOf('node-reboot')).toBe(`${reasonOf('prepare-idempotent')}, CDI specs written again`);
    expect(run?.stderr()).toMatch(/the node rebooted since the checkpoint was written/);
  }, 120_000);
});
