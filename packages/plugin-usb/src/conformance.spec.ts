import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import { spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { addSampleMachine } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';
import { bundleUsbPlugin } from './testing/bundle-usb-plugin';

// The real binary as a process, bundled as the build target does (usb stays external, loaded from node_modules).

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleUsbPlugin();
}, 60_000);
afterAll(() => bundle.remove());

describe('usb-device-plugin as a process', () => {
  let usb: UsbFixture;
  let dir: string;
  let plugin: PluginProcess | undefined;

  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    dir = mkdtempSync(join(tmpdir(), 'kdp-usbp-'));
    writeFileSync(
      join(usb.sys.base, 'usb.yaml'),
      'resources:\n  - name: example.com/serial\n    match: [{ class: ff }]\n    count: 2\n',
    );
  });

  afterEach(async () => {
    await plugin?.kill();
    plugin = undefined;
    usb.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the kubelet-sim conformance suite (kubelet-sim check), SIGTERM included', async () => {
    plugin = spawnPlugin(bundle.path, [
      'serve',
      ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot, '--device-plugin-dir', dir],
      ...['--config', join(usb.sys.base, 'usb.yaml'), '--log-level', 'warn'],
    ]);
    const pid = plugin.child.pid;
    const report = await runConformance({
      dir,
      ...(pid !== undefined ? { pid } : {}),
      restarts: 2,
      registrationTimeoutMs: 30_000,
      // Strict: every recommended practice too. Only PreStartContainer does not apply (not required).
      strict: true,
    });
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect({ failed, stderr: failed.length > 0 ? plugin.stderr() : '' }).toEqual({ failed: [], stderr: '' });
    expect(report.ok).toBe(true);
    expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([
      'pre-start-container: skip',
    ]);
    expect(await plugin.exited).toEqual([0, null]);
    expect(readdirSync(dir).filter((name) => name.startsWith('example.com_serial'))).toEqual([]);
  }, 120_000);

  it('a bad configuration exits 2 naming the file, the field and the problem', async () => {
    const bad = join(usb.sys.base, 'bad.yaml');
    writeFileSync(
      bad,
      'resources:\n  - name: example.com/serial\n    match: [{ vendor: "0403" }]\n    count: -1\n',
    );
    plugin = spawnPlugin(bundle.path, ['serve', '--config', bad, '--device-plugin-dir', dir]);
    const closed = once(plugin.child, 'close'); // stderr fully read
    expect(await plugin.exited).toEqual([2, null]);
    await closed;
    expect(plugin.stderr()).toContain(
      `usb-device-plugin: ${bad}: resources[0].count: Too small: expected number to be >=1`,
    );
  }, 30_000);

  it('--version prints the binary and version', async () => {
    plugin = spawnPlugin(bundle.path, ['--version']);
    const closed = once(plugin.child, 'close'); // stdout fully read
    expect(await plugin.exited).toEqual([0, null]);
    await closed;
    expect(plugin.stdout()).toBe('usb-device-plugin 0.1.0\n');
  }, 30_000);
});
