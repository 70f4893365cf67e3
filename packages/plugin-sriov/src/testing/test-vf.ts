import type { NicFunction } from '../scan/nic-function';

/** Fields to override; `undefined` removes an optional field (e.g. `driver: undefined` = unbound). */
export type TestVfOverrides = { [K in keyof NicFunction]?: NicFunction[K] | undefined };

/** A VF as scanNode would return it, for unit tests; override any field. */
export function testVf(overrides: TestVfOverrides = {}): NicFunction {
  const fn: Record<string, unknown> = {
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
  for (const key of Object.keys(fn)) if (fn[key] === undefined) delete fn[key];
  return fn as unknown as NicFunction;
}
