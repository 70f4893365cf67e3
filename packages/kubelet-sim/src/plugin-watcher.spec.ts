import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createKubeletSim } from './kubelet-sim';
import type { KubeletSim } from './kubelet-sim-types';
import { startPluginWatcher } from './plugin-watcher';
import { createTestPlugin, type TestPlugin, type TestPluginOptions } from './testing/test-plugin';

describe('plugin-watcher mode (P-36)', () => {
  let root: string;
  let registry: string;
  let sim: KubeletSim;
  const plugins: TestPlugin[] = [];
  const plugin = async (
    options: Omit<TestPluginOptions, 'dir' | 'pluginsRegistryDir'> = {},
  ): Promise<TestPlugin> => {
    const p = await createTestPlugin({ dir: join(root, 'dp'), pluginsRegistryDir: registry, ...options });
    plugins.push(p);
    return p;
  };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-w-'));
    registry = join(root, 'reg');
    sim = await createKubeletSim({ dir: join(root, 'dp'), pluginsRegistryDir: registry });
  });
  afterEach(async () => {
    for (const p of plugins.splice(0)) await p.stop();
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('registers a socket that appears: GetInfo, connect, NotifyRegistrationStatus, ListAndWatch', async () => {
    const registered = sim.waitFor('registered');
    const devices = sim.waitFor('devices');
    const p = await plugin();
    expect(await registered).toMatchObject({
      resource: 'example.com/dev',
      via: 'plugin-watcher',
      endpoint: p.socketPath,
    });
    expect((await devices).healthy).toHaveLength(4);
    expect(await p.statusReceived(1)).toEqual([{ pluginRegistered: true, error: '' }]);
    expect(sim.resource('example.com/dev')?.registered).toBe(true);
  });

  it.each<[string, Omit<TestPluginOptions, 'dir'>, string]>([
    [
      'an invalid name',
      { resource: 'dev' },
      'invalid name of device plugin socket: the ResourceName "dev" is invalid',
    ],
    [
      'no supported version',
      { version: 'v1' },
      'manager version, v1beta1, is not among plugin supported versions [v1]',
    ],
    ['another plugin type', { pluginType: 'CSIPlugin' }, 'no handler registered for plugin type: CSIPlugin'],
  ])('rejects %s with the kubelet message and notifies the plugin', async (_name, options, message) => {
    const rejected = sim.waitFor('register-rejected');
    const p = await plugin(options);
    expect((await rejected).message).toBe(message);
    expect(await p.statusReceived(1)).toEqual([{ pluginRegistered: false, error: message }]);
  });

  it('ignores sockets whose name starts with a dot', async () => {
    const registered = sim.waitFor('registered');
    await plugin({ endpoint: '.hidden.sock', resource: 'example.com/hidden' });
    await plugin({ endpoint: 'shown.sock', resource: 'example.com/shown' });
    expect((await registered).resource).toBe('example.com/shown');
    expect(sim.resource('example.com/hidden')).toBeUndefined();
  });

  it('deregisters the plugin when its socket is removed', async () => {
    const devices = sim.waitFor('devices');
    const p = await plugin();
    await devices;
    const ended = sim.waitFor('stream-ended');
    rmSync(p.socketPath);
    expect((await ended).reason).toBe('plugin-watcher socket removed');
    expect(sim.resource('example.com/dev')).toMatchObject({ registered: false, allocatable: 0 });
  });
});

describe('startPluginWatcher', () => {
  it('removes and adds a socket deleted and created again before it looked (a plugin restarted at once)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ks-w-'));
    const path = join(dir, 'p.sock');
    const listen = (): Server => {
      const server = createServer();
      // A pipe is bound within listen(): the socket file exists when it returns.
      server.listen(path);
      return server;
    };
    const first = listen();
    const events: string[] = [];
    let onEvent = (): void => undefined;
    const watcher = startPluginWatcher({
      dir,
      onAdded: (p) => {
        events.push(`added ${p}`);
        onEvent();
      },
      onRemoved: (p) => {
        events.push(`removed ${p}`);
        onEvent();
      },
    });
    try {
      expect(events).toEqual([`added ${path}`]);
      const readded = new Promise<void>((resolve) => {
        onEvent = () => {
          if (events.length === 3) resolve();
        };
      });
      // In one tick: the watcher's change events arrive after both.
      rmSync(path);
      const second = listen();
      await readded;
      expect(events).toEqual([`added ${path}`, `removed ${path}`, `added ${path}`]);
      second.close();
    } finally {
      watcher.close();
      first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
