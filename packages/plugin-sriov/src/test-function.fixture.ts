import type { NicFunction } from './nic-function';

/** A VF as scanNode would return it, for unit tests; override any field. */
export function testVf(overrides: Partial<NicFunction> = {}): NicFunction {
  return {
    address: '0000:3b:02.1',
    kind: 'netDevice',
    vendor: '8086',
    device: '154c',
    driver: 'iavf',
    numaNode: 0,
    iommuGroup: 101,
    noIommu: false,
    netdevs: ['ens1f0v1'],
    linkType: 'ether',
    rdmaDevices: [],
    uioDevices: [],
    vf: { pfAddress: '0000:3b:00.0', index: 1 },
    pfName: 'ens1f0',
    pfCarrier: true,
    pciePath: ['0000:3a:00.0'],
    ...overrides,
  };
}
