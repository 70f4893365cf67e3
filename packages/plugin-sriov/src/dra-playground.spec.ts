import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { createSysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the SR-IOV driver: the DRA playground and real kubectl against
// `sriov-device-plugin serve --mode dra` on the two-PF fixture. One request picks a vfio-pci VF (DPDK) by its
// resource name, the other (firstAvailable) any VF.
const test = createPlaygroundDriverTest({
  plugin: sriovPlugin,
  driver: 'sriov.kdp.dev',
  selector: 'device.attributes["sriov.kdp.dev"].resource == "intel.com/intel_sriov_dpdk"',
  machine: (dir) => {
    const fx = createSysfsFixture();
    addTwoPfNode(fx);
    const config = join(dir, 'config.json');
    writeFileSync(config, UPSTREAM_CONFIG);
    return {
      flags: [
        ...['--sysfs-root', fx.root, '--proc-root', fx.procRoot, '--dev-root', fx.devRoot],
        ...['--poll-interval', '1h', '--config', config, '--devinfo-dir', join(dir, 'devinfo')],
      ],
      devRoot: fx.devRoot,
      procRoot: fx.procRoot,
      remove: () => fx.remove(),
    };
  },
});

describe('sriov-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
