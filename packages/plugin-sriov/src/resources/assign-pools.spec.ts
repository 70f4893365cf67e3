import { assignPools, poolIndex } from './assign-pools';
import type { NodeScan } from '../scan/nic-function';
import { sriovConfigSchema } from '../config';
import { testVf } from '../testing/test-vf';

const scanOf = (...functions: ReturnType<typeof testVf>[]): NodeScan => ({
  functions,
  skipped: [
    {
      path: '/sys/bus/pci/devices/0000:3b:00.0',
      reason: 'physical function with 2 VFs enabled; its VFs are offered instead',
    },
  ],
  skippedFunctions: [],
  uevents: false,
  rdmaCharDevices: new Map(),
  warnings: [],
});

describe('assignPools', () => {
  const config = sriovConfigSchema.parse({
    resourceList: [
      { resourceName: 'kernel', selectors: { drivers: ['iavf'] } },
      { resourceName: 'any_intel', resourcePrefix: 'example.com', selectors: { vendors: ['8086'] } },
    ],
  });

  it('puts each function in the first pool that matches, as upstream', () => {
    const a = testVf({ address: '0000:3b:02.0', driver: 'iavf' });
    const b = testVf({ address: '0000:3b:02.1', driver: 'vfio-pci' });
    const result = assignPools(scanOf(a, b), config, { defaultPrefix: 'intel.com' });
    expect(result.pools.map((p) => [p.resourceName, p.members.map((m) => m.fn.address)])).toEqual([
      ['intel.com/kernel', ['0000:3b:02.0']],
      ['example.com/any_intel', ['0000:3b:02.1']],
    ]);
    expect(result.excluded).toEqual([
      {
        path: '/sys/bus/pci/devices/0000:3b:00.0',
        reason: 'physical function with 2 VFs enabled; its VFs are offered instead',
      },
    ]);
  });

  it('explains a function no pool takes, per pool', () => {
    const mlx = testVf({ address: '0000:d8:00.2', vendor: '15b3', driver: 'mlx5_core' });
    expect(assignPools(scanOf(mlx), config, { defaultPrefix: 'intel.com' }).excluded[1]).toEqual({
      path: '/sys/bus/pci/devices/0000:d8:00.2',
      reason:
        'intel.com/kernel: driver mlx5_core does not match selector drivers=[iavf] | ' +
        'example.com/any_intel: vendor 15b3 does not match selector vendors=[8086]',
    });
  });

  it('keeps a function in its pool, unhealthy, while its driver is unbound', () => {
    const bound = testVf({ address: '0000:3b:02.0', vendor: '15b3' });
    const first = assignPools(scanOf(bound), config, { defaultPrefix: 'intel.com' });
    const unbound = testVf({ address: '0000:3b:02.0', vendor: '15b3', driver: undefined });
    const second = assignPools(scanOf(unbound), config, {
      defaultPrefix: 'intel.com',
      previous: poolIndex(first),
    });
    expect(second.pools[0]?.members).toEqual([
      { fn: unbound, selectorIndex: 0, healthy: false, problem: 'no driver is bound' },
    ]);
    const fresh = assignPools(scanOf(unbound), config, { defaultPrefix: 'intel.com' });
    expect(fresh.pools[0]?.members).toEqual([]);
  });

  it('marks members unhealthy when their PF has no carrier', () => {
    const vf = testVf({ pfCarrier: false });
    expect(
      assignPools(scanOf(vf), config, { defaultPrefix: 'intel.com' }).pools[0]?.members[0],
    ).toMatchObject({
      healthy: false,
      problem: 'PF ens1f0 has no carrier',
    });
  });

  it('ignores a second pool that --resource-prefix makes the same name', () => {
    const twice = sriovConfigSchema.parse({
      resourceList: [
        { resourceName: 'x', selectors: { drivers: ['vfio-pci'] } },
        { resourceName: 'x', resourcePrefix: 'intel.com', selectors: { drivers: ['iavf'] } },
      ],
    });
    const result = assignPools(scanOf(testVf()), twice, { defaultPrefix: 'intel.com' });
    expect(result.pools).toHaveLength(1);
    expect(result.excluded[1]?.reason).toBe(
      'intel.com/x: driver iavf does not match selector drivers=[vfio-pci]',
    );
  });
});
