import {
  createClaimPod,
  createPlaygroundDriverTest,
  installClaimConfigPolicy,
  podEvent,
  runClaimPod,
} from '@kdp/dra/testing';
import { vfConfigKind } from './dra/vf-claim-config';
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

beforeAll(() => test.start());
afterAll(() => test.stop());

describe('sriov-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  it.each(test.cases)('%s', (_, check) => check());
});

// Issue 28 item 3 for SR-IOV: a claim says which driver its VF needs (VfConfig); a pool that cannot provide it
// fails the claim at prepare with a message naming the pool.
describe('VfConfig claim configuration in the DRA playground', () => {
  const netdevicePool = 'device.attributes["sriov.kdp.dev"].resource == "intel.com/intel_sriov_netdevice"';
  const vfConfig = (driver: string) => ({ apiVersion: 'sriov.kdp.dev/v1alpha1', kind: 'VfConfig', driver });

  it('fails prepare of a claim needing vfio-pci on a netdevice-only pool, with a clear message', async () => {
    const setup = test.driver();
    await installClaimConfigPolicy(setup, 'sriov.kdp.dev', [vfConfigKind]);
    await createClaimPod(
      setup,
      {
        name: 'wants-vfio',
        driver: 'sriov.kdp.dev',
        selector: netdevicePool,
        parameters: vfConfig('vfio-pci'),
      },
      'wants-vfio-pod',
    );
    const message = await podEvent(setup, 'wants-vfio-pod', 'FailedPrepareDynamicResources');
    expect(message).toMatch(
      /VfConfig driver vfio-pci: VF 0000:[0-9a-f:.]+ of pool intel.com\/intel_sriov_netdevice is bound to iavf \(netdevice\); this pool cannot provide vfio-pci/,
    );
  });

  it('prepares a claim needing netdevice on that pool', async () => {
    await runClaimPod(
      test.driver(),
      {
        name: 'wants-netdev',
        driver: 'sriov.kdp.dev',
        selector: netdevicePool,
        parameters: vfConfig('netdevice'),
      },
      'wants-netdev-pod',
    );
  });
});
