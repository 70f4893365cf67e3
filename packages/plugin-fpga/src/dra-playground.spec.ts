import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB3 } from './testing/create-fpga-fixture';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the FPGA driver: the DRA playground and real kubectl against
// `fpga-device-plugin serve --mode dra` on two DFL cards. One request picks the port on NUMA node 0, the other
// (firstAvailable) any port.
const test = createPlaygroundDriverTest({
  plugin: fpgaPlugin,
  driver: 'fpga.kdp.dev',
  selector: 'device.attributes["fpga.kdp.dev"].numa == 0',
  machine: () => {
    const fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB3 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    return {
      flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--poll-interval', '1h'],
      devRoot: fx.devRoot,
      remove: () => fx.remove(),
    };
  },
});

describe('fpga-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
