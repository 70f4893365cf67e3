import type { PluginDevice } from '@kdp/core';
import { toPluginDevice, withVanished, type SriovPayload } from './pool-devices';
import { sriovConfigSchema, type SriovPool } from './sriov-config';
import { testVf } from './test-function.fixture';

const pool = sriovConfigSchema.parse({ resourceList: [{ resourceName: 'p' }] }).resourceList[0] as SriovPool;
const device = (address: string, excludeTopology = false): PluginDevice<SriovPayload> =>
  toPluginDevice(
    'intel.com/p',
    { ...pool, excludeTopology },
    { fn: testVf({ address }), selectorIndex: 0, healthy: true },
  );

describe('pool devices', () => {
  it('advertise the PCI address, NUMA node (unless excludeTopology) and PCIe path', () => {
    expect(device('0000:3b:02.0')).toMatchObject({
      id: '0000:3b:02.0',
      health: 'Healthy',
      numaNodes: [0],
      pciePath: ['0000:3a:00.0'],
    });
    expect(device('0000:3b:02.0', true).numaNodes).toEqual([]);
  });

  it('keep a vanished device Unhealthy for the grace period, then drop it', () => {
    const vanished = new Map<string, Map<string, number>>();
    const a = device('0000:3b:02.0');
    const b = device('0000:3b:02.1');
    const first = withVanished(new Map([['intel.com/p', [a, b]]]), new Map(), vanished, 1000, 5000);
    expect(first.get('intel.com/p')?.map((d) => d.health)).toEqual(['Healthy', 'Healthy']);
    const second = withVanished(new Map([['intel.com/p', [a]]]), first, vanished, 2000, 5000);
    expect(second.get('intel.com/p')?.map((d) => [d.id, d.health])).toEqual([
      ['0000:3b:02.0', 'Healthy'],
      ['0000:3b:02.1', 'Unhealthy'],
    ]);
    expect(second.get('intel.com/p')?.[1]?.payload?.member.problem).toBe('device vanished');
    const third = withVanished(new Map([['intel.com/p', [a]]]), second, vanished, 6999, 5000);
    expect(third.get('intel.com/p')).toHaveLength(2);
    const fourth = withVanished(new Map([['intel.com/p', [a]]]), third, vanished, 7000, 5000);
    expect(fourth.get('intel.com/p')?.map((d) => d.id)).toEqual(['0000:3b:02.0']);
  });

  it('drop vanished devices at once with a zero grace, and a device that comes back is Healthy', () => {
    const vanished = new Map<string, Map<string, number>>();
    const a = device('0000:3b:02.0');
    const first = withVanished(new Map([['intel.com/p', [a]]]), new Map(), vanished, 0, 0);
    expect(withVanished(new Map([['intel.com/p', []]]), first, vanished, 1, 0).get('intel.com/p')).toEqual(
      [],
    );
    const kept = withVanished(new Map([['intel.com/p', []]]), first, vanished, 1, 100);
    expect(
      withVanished(new Map([['intel.com/p', [a]]]), kept, vanished, 2, 100).get('intel.com/p')?.[0]?.health,
    ).toBe('Healthy');
  });
});
