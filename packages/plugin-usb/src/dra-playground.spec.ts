import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkTwoRequestsPod,
  checkUnschedulablePod,
  startPlaygroundDriver,
  type PlaygroundDriver,
  type PlaygroundPodCheckOptions,
} from '@kdp/dra/testing';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the USB driver: the DRA playground (API server, scheduler with real CEL, kubelets)
// and real kubectl against `usb-device-plugin serve --mode dra` on the sample machine.
describe('usb-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  let usb: UsbFixture;
  let base: string;
  let setup: PlaygroundDriver;
  // A webcam by its product name for one request; any device for the other (firstAvailable).
  const checks = (): PlaygroundPodCheckOptions => ({
    driver: 'usb.kdp.dev',
    selector: 'device.attributes["usb.kdp.dev"].productName == "Webcam C270"',
    devRoot: usb.sys.devRoot,
  });

  beforeAll(async () => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    base = mkdtempSync(join(tmpdir(), 'kdp-upg-'));
    const config = join(base, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
    setup = await startPlaygroundDriver({
      plugin: usbPlugin,
      driver: 'usb.kdp.dev',
      dir: base,
      flags: [
        ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
        ...['--config', config, '--poll-interval', '1h'],
      ],
      devRoot: usb.sys.devRoot,
    });
  });
  afterAll(async () => {
    await setup?.stop();
    usb.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('runs a pod whose two containers name two requests, each with exactly its devices and env', async () => {
    await checkTwoRequestsPod(setup, checks());
  });

  it('leaves a pod whose claim matches nothing Pending with the scheduler’s reason', async () => {
    await checkUnschedulablePod(setup, checks());
  });
});
