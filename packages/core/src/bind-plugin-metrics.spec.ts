import { join } from 'node:path';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { createDevicePlugin } from './device-plugin';
import { createPushSource } from './device-source';
import { bindPluginMetrics, type LifecycleMetricsSink } from './bind-plugin-metrics';
import { createTempDir } from '@kdp/topology/testing';

describe('bindPluginMetrics', () => {
  it('drives every contract metric from a real lifecycle', async () => {
    const tmp = createTempDir();
    const sim = await createKubeletSim({ dir: join(tmp.path, 'dp') });
    const calls: string[] = [];
    const sink: LifecycleMetricsSink = {
      setDevices: (r, d) => calls.push(`devices ${r} ${d.map((x) => `${x.id}:${x.health}`).join(',')}`),
      registered: (r) => calls.push(`registered ${r}`),
      reregistered: (r, reason) => calls.push(`reregistered ${r} ${reason}`),
      setRegistered: (r, v) => calls.push(`setRegistered ${r} ${v}`),
      allocate: (r, s, ok) => calls.push(`allocate ${r} ${ok} ${s < 1}`),
      streams: (r, n) => calls.push(`streams ${r} ${n}`),
      removeResource: (r) => calls.push(`removed ${r}`),
    };
    const plugin = createDevicePlugin({
      devicePluginDir: sim.dir,
      resources: [{ name: 'example.com/x', source: createPushSource([{ id: 'a', health: 'Healthy' }]) }],
    });
    bindPluginMetrics(plugin, sink);
    try {
      const listed = sim.waitFor('devices', undefined, 20_000);
      await plugin.start();
      await listed;
      await sim.admit({ pod: 'p', container: 'c', resource: 'example.com/x', count: 1 });
      const again = plugin.waitFor((e) => e.type === 'registered' && e.reregistration);
      sim.dropStream('example.com/x');
      await again;
      await plugin.removeResource('example.com/x');
    } finally {
      await plugin.stop();
      await sim.close();
      tmp.remove();
    }
    expect(calls).toEqual(
      expect.arrayContaining([
        'devices example.com/x a:Healthy',
        'registered example.com/x',
        'setRegistered example.com/x true',
        'streams example.com/x 1',
        'allocate example.com/x true true',
        'setRegistered example.com/x false',
        'reregistered example.com/x stream-cancelled',
        'streams example.com/x 0',
        'removed example.com/x',
      ]),
    );
    expect(calls.filter((c) => c === 'registered example.com/x')).toHaveLength(2);
  }, 30_000);
});
