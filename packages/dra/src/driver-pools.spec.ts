import { silentLogger } from '@kdp/base';
import type { DeviceSource, PluginDevice } from '@kdp/core';
import { createFakeClock } from '@kdp/kubelet-sim';
import { createDriverPools } from './driver-pools';

describe('createDriverPools', () => {
  const device = (id: string, health: 'Healthy' | 'Unhealthy' = 'Healthy'): PluginDevice<unknown> => ({
    id,
    health,
    ...(health === 'Unhealthy' ? { problem: 'XID 79' } : {}),
  });

  it('reports health as of when it was last observed: a pushed list or an unchanged probe, not the read', () => {
    const clock = createFakeClock(1_800_000_000_000);
    let changes = 0;
    const pools = createDriverPools(
      { name: 'gpu.kdp.dev', nodeName: 'node-a', clock, logger: silentLogger },
      () => {
        changes += 1;
      },
    );
    let push: (devices: readonly PluginDevice<unknown>[]) => void = () => undefined;
    const source: DeviceSource<unknown> & { set: typeof push } = {
      subscribe(listener) {
        push = listener;
        return () => (push = () => undefined);
      },
      set: (devices) => push(devices),
    };
    pools.host.addResource({ name: 'example.com/gpu', source });
    source.set([device('gpu-0'), device('gpu-1', 'Unhealthy')]);
    expect(changes).toBe(1);
    clock.advance(20_000);
    // A stalled scan: the health is still the one observed 20 s ago.
    expect(pools.health.current()).toEqual([
      {
        poolName: 'node-a/example.com/gpu',
        deviceName: 'gpu-0',
        health: 'Healthy',
        observedAt: 1_800_000_000_000,
      },
      {
        poolName: 'node-a/example.com/gpu',
        deviceName: 'gpu-1',
        health: 'Unhealthy',
        message: 'XID 79',
        observedAt: 1_800_000_000_000,
      },
    ]);
    expect(pools.slices().get('node-a/example.com/gpu')).toEqual([
      expect.objectContaining({ name: 'gpu-0' }),
    ]);
    // A change probe that found nothing changed confirms the list; a new scan's push does too.
    pools.host.unchanged?.();
    expect(pools.health.current().map((d) => d.observedAt)).toEqual([1_800_000_020_000, 1_800_000_020_000]);
    clock.advance(5_000);
    source.set([device('gpu-0')]);
    expect(pools.health.current().map((d) => d.observedAt)).toEqual([1_800_000_025_000]);
    pools.close();
  });
});
