import type { NicFunction } from '../scan/nic-function';

/** Fields to override; `undefined` removes an optional field (e.g. `driver: undefined` = unbound). */
export type TestVfOverrides = { [K in keyof NicFunction]?: NicFunction[K] | undefined };

/**
 * A VF as scanNics would return it, for unit tests; override any field (`sysfsPath` follows `address` under
 * the root port 0000:3a:00.0 unless given).
 */
export function testVf(overrides: TestVfOverrides = {}): NicFunction {
  const address = overrides.address ?? '0000:3b:02.1';
  const fn: Record<string, unknown> = {
    address,
    sysfsPath: `devices/pci0000:3a/0000:3a:00.0/${address}`,
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
