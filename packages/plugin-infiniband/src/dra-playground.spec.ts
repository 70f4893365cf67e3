import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { infinibandPlugin } from './plugin';
import { rdmaPlaygroundMachine } from './testing/playground-machine';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the InfiniBand driver: the DRA playground and real kubectl against
// `infiniband-device-plugin serve --mode dra` on the RDMA fixture. One request picks the Omni-Path HCA by its
// kernel driver, the other (firstAvailable) any HCA.
const test = createPlaygroundDriverTest({
  plugin: infinibandPlugin,
  driver: 'infiniband.kdp.dev',
  selector: 'device.attributes["infiniband.kdp.dev"].driver == "hfi1"',
  machine: () => rdmaPlaygroundMachine(),
});

describe('infiniband-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
