import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { runDraConformance } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

// "The USB driver passes `kubelet-sim check --dra`": the DRA suite against `usb-device-plugin serve --mode dra`
// run in this process, restarted by the suite for `plugin-restart` and "rebooted" for `node-reboot` (a new boot
// ID in a procfs of its own: the USB plugin takes no --proc-root, so the DRA mode is given the node's; CDI emptied).
describe('kubelet-sim check --dra of usb-device-plugin serve --mode dra', () => {
  let usb: UsbFixture;
  let base: string;
  let node: DraTestNode | undefined;

  beforeAll(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    base = mkdtempSync(join(tmpdir(), 'kdp-udc-'));
  });
  afterAll(async () => {
    await node?.stop();
    usb.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('passes every required check, plugin restart and node reboot included', async () => {
    const config = join(base, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
    node = createDraTestNode({
      plugin: usbPlugin,
      dir: base,
      flags: [
        ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
        ...['--config', config, '--poll-interval', '1h'],
      ],
    });

    const report = await runDraConformance({
      driver: 'usb.kdp.dev',
      nodeName: 'node-u',
      devRoot: usb.sys.devRoot,
      ...node.suite,
    });

    const failed = report.checks.flatMap((c) => (c.status === 'fail' ? [`${c.id}: ${c.reason}`] : []));
    if (failed.length > 0) process.stderr.write(node.stderr());
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
    expect(node.stderr()).toMatch(/the node rebooted since the checkpoint was written/);
  }, 120_000);
});
