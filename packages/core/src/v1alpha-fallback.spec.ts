import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevicePlugin } from './device-plugin';
import { createPushSource } from './device-source';
import { startFakeV1alphaKubelet, type FakeV1alphaKubelet } from './fake-kubelet.fixture';

describe('v1alpha fallback', () => {
  let dir: string;
  let kubelet: FakeV1alphaKubelet;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-va-'));
    kubelet = await startFakeV1alphaKubelet(dir);
  });
  afterEach(async () => {
    await kubelet.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers with v1alpha2 when the kubelet answers v1beta1 with UNIMPLEMENTED, and serves the old API', async () => {
    const source = createPushSource([
      { id: 'a', health: 'Healthy', allocation: { envs: { A: '1' }, cdiDevices: ['example.com/dev=a'] } },
    ]);
    const plugin = createDevicePlugin({
      devicePluginDir: dir,
      handleSignals: false,
      resources: [{ name: 'example.com/dev', source }],
    });
    const registered = plugin.waitFor((e) => e.type === 'registered');
    const listed = new Promise((resolve) => kubelet.events.once('devices', resolve));
    await plugin.start();
    try {
      expect(await registered).toMatchObject({ apiVersion: 'v1alpha2', resource: 'example.com/dev' });
      await listed;
      expect(kubelet.registrations[0]).toMatchObject({
        version: 'v1alpha2',
        resourceName: 'example.com/dev',
      });
      expect(kubelet.devices.get('example.com/dev')).toEqual([{ ID: 'a', health: 'Healthy' }]);
      const response = await kubelet.allocate('example.com/dev', ['a']);
      expect(response.envs).toEqual({ A: '1' });
      await expect(kubelet.allocate('example.com/dev', ['zz'])).rejects.toThrow(/unknown device ID "zz"/);
    } finally {
      await plugin.stop();
    }
  });
});
