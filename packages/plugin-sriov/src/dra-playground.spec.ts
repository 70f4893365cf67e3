import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { sriovPlugin } from './plugin';
import { twoPfPlaygroundMachine } from './testing/playground-machine';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the SR-IOV driver: the DRA playground and real kubectl against
// `sriov-device-plugin serve --mode dra` on the two-PF fixture. One request picks a vfio-pci VF (DPDK) by its
// resource name, the other (firstAvailable) any VF.
const test = createPlaygroundDriverTest({
  plugin: sriovPlugin,
  driver: 'sriov.kdp.dev',
  selector: 'device.attributes["sriov.kdp.dev"].resource == "intel.com/intel_sriov_dpdk"',
  machine: (dir) => twoPfPlaygroundMachine(dir),
});

describe('sriov-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
