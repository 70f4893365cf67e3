import type { ResourceSet } from '@kdp/core/plugin';
import { infinibandFeatures } from './infiniband-features';

const slot = (id: string, ibdevs: string[]) => ({
  id,
  health: 'Healthy' as const,
  payload: { ibdevs, locality: { numaNodes: [0], pciePath: [] } },
});

describe('infinibandFeatures', () => {
  it('labels the node RDMA capable when a resource holds an RDMA device, with a count per resource', () => {
    const set: ResourceSet = {
      resources: [
        { name: 'rdma/hca_shared_devices_a', devices: [slot('1', ['mlx5_0']), slot('2', ['mlx5_0'])] },
        { name: 'rdma/unmatched', devices: [] },
      ],
    };
    expect(infinibandFeatures(set)).toEqual({
      'feature.node.kubernetes.io/rdma.capable': 'true',
      'rdma/hca_shared_devices_a.count': '2',
      'rdma/unmatched.count': '0',
    });
  });

  it('says nothing of RDMA when no resource holds a device', () => {
    expect(infinibandFeatures({ resources: [{ name: 'rdma/a', devices: [] }] })).toEqual({
      'rdma/a.count': '0',
    });
  });
});
