import type { ResourceSet } from '@kdp/core/plugin';
import { sriovFeatures } from './sriov-features';

/** A pooled function as the plan carries it (only what the labels read). */
const member = (address: string, pfAddress?: string) => ({
  id: address,
  health: 'Healthy' as const,
  payload: { fn: { address, ...(pfAddress !== undefined ? { vf: { pfAddress, index: 0 } } : {}) } },
});

describe('sriovFeatures', () => {
  it('counts functions, VFs and their PFs per pool', () => {
    const set: ResourceSet = {
      resources: [
        {
          name: 'intel.com/intel_sriov_netdevice',
          devices: [
            member('0000:3b:02.0', '0000:3b:00.0'),
            member('0000:3b:02.1', '0000:3b:00.0'),
            member('0000:5e:02.0', '0000:5e:00.0'),
          ],
        },
        { name: 'intel.com/whole_pfs', devices: [member('0000:af:00.0'), member('0000:af:00.1')] },
        { name: 'intel.com/empty', devices: [] },
      ],
    };
    expect(sriovFeatures(set)).toEqual({
      'intel.com/intel_sriov_netdevice.count': '3',
      'intel.com/intel_sriov_netdevice.vf-count': '3',
      'intel.com/intel_sriov_netdevice.pf-count': '2',
      'intel.com/whole_pfs.count': '2',
      'intel.com/whole_pfs.vf-count': '0',
      'intel.com/whole_pfs.pf-count': '2',
      'intel.com/empty.count': '0',
      'intel.com/empty.vf-count': '0',
      'intel.com/empty.pf-count': '0',
    });
  });
});
