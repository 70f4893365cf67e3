import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture } from './testing/usb-fixture';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the USB driver: the DRA playground and real kubectl against
// `usb-device-plugin serve --mode dra` on the sample machine. One request picks the webcam by its product
// name, the other (firstAvailable) any USB device.
const test = createPlaygroundDriverTest({
  plugin: usbPlugin,
  driver: 'usb.kdp.dev',
  selector: 'device.attributes["usb.kdp.dev"].productName == "Webcam C270"',
  machine: (dir) => {
    const usb = createUsbFixture();
    addSampleMachine(usb);
    const config = join(dir, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
    return {
      flags: [
        ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
        ...['--config', config, '--poll-interval', '1h'],
      ],
      devRoot: usb.sys.devRoot,
      remove: () => usb.remove(),
    };
  },
});

describe('usb-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
