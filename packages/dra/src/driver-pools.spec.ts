import { silentLogger } from '@kdp/base';
import type { DeviceSource, PluginDevice } from '@kdp/core';
import { createFakeClock } from '@kdp/kubelet-sim';
import { createDriverPools } from './driver-pools';
import type { SliceDevice } from './pool-slices';

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
    expect(
      (pools.slices().get('node-a/example.com/gpu') as readonly SliceDevice[] | undefined)?.map(
        (d) => d.name,
      ),
    ).toEqual(['gpu-0', 'gpu-1']);
    // A change probe that found nothing changed confirms the list; a new scan's push does too.
    pools.host.unchanged?.();
    expect(pools.health.current().map((d) => d.observedAt)).toEqual([1_800_000_020_000, 1_800_000_020_000]);
    clock.advance(5_000);
    source.set([device('gpu-0')]);
    expect(pools.health.current().map((d) => d.observedAt)).toEqual([1_800_000_025_000]);
    pools.close();
  });

  it('keeps an Unhealthy device in its slice with a kdp.dev/unhealthy taint, stable until it changes or recovers', () => {
    const clock = createFakeClock(1_800_000_000_500);
    const pools = createDriverPools(
      { name: 'gpu.kdp.dev', nodeName: 'node-a', clock, logger: silentLogger },
      () => undefined,
    );
    let push: (devices: readonly PluginDevice<unknown>[]) => void = () => undefined;
    const source: DeviceSource<unknown> = {
      subscribe(listener) {
        push = listener;
        return () => (push = () => undefined);
      },
    };
    pools.host.addResource({
      name: 'example.com/gpu',
      source,
      dra: { taintEffect: (d) => (d.problem === 'fell off the bus' ? 'NoExecute' : 'NoSchedule') },
    });
    const slice = () => pools.slices().get('node-a/example.com/gpu') as readonly SliceDevice[] | undefined;
    push([device('gpu-0'), device('gpu-1', 'Unhealthy')]);
    expect(slice()).toEqual([
      expect.not.objectContaining({ taints: expect.anything() }),
      expect.objectContaining({
        name: 'gpu-1',
        taints: [
          {
            key: 'kdp.dev/unhealthy',
            value: 'XID-79',
            effect: 'NoSchedule',
            timeAdded: '2027-01-15T08:00:00Z',
          },
        ],
      }),
    ]);
    // The same problem later: the same taint, the same time (no republish).
    clock.advance(3_000);
    push([device('gpu-0'), device('gpu-1', 'Unhealthy')]);
    expect(slice()?.[1]?.taints?.[0]?.timeAdded).toBe('2027-01-15T08:00:00Z');
    // Another problem, per the resource's hook NoExecute: a new taint, added now.
    push([device('gpu-0'), { id: 'gpu-1', health: 'Unhealthy', problem: 'fell off the bus' }]);
    expect(slice()?.[1]?.taints).toEqual([
      {
        key: 'kdp.dev/unhealthy',
        value: 'fell-off-the-bus',
        effect: 'NoExecute',
        timeAdded: '2027-01-15T08:00:03Z',
      },
    ]);
    // Recovered: no taint; unhealthy again later: a new time.
    push([device('gpu-0'), device('gpu-1')]);
    expect(slice()?.[1]).not.toHaveProperty('taints');
    clock.advance(60_000);
    push([device('gpu-0'), device('gpu-1', 'Unhealthy')]);
    expect(slice()?.[1]?.taints?.[0]?.timeAdded).toBe('2027-01-15T08:01:03Z');
    pools.close();
  });
});
