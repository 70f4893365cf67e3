import { draHealthV1alpha1 } from '@kdp/api';
import { createFakeClock, type FakeClock } from '@kdp/kubelet-sim';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDraHealthWatcher, type DraHealthWatcher } from './dra-health-watcher';
import { startFakeDraDriver, type FakeDraDriver } from './testing/fake-dra-driver';

const { HEALTHY, UNHEALTHY, UNKNOWN } = draHealthV1alpha1.HealthStatus;
const WAIT_MS = 10_000;

/** Resolves once `check` holds, re-checked on every change the watcher reports. */
function until(changes: (() => void)[], check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not within ${WAIT_MS} ms: ${what}`)), WAIT_MS);
    const listener = (): void => {
      if (!check()) return;
      clearTimeout(timer);
      changes.splice(changes.indexOf(listener), 1);
      resolve();
    };
    changes.push(listener);
    listener();
  });
}

describe('createDraHealthWatcher', () => {
  let temp: TempDir;
  let plugins: string;
  let clock: FakeClock;
  let watcher: DraHealthWatcher;
  let changes: (() => void)[];
  const drivers: FakeDraDriver[] = [];
  const now = (): number => Math.floor(clock.now() / 1000);

  beforeEach(() => {
    temp = createTempDir('mon-dra-');
    plugins = join(temp.path, 'plugins');
    mkdirSync(plugins);
    clock = createFakeClock(Date.now());
    changes = [];
    watcher = createDraHealthWatcher({
      pluginsDir: plugins,
      clock,
      onChange: () => {
        for (const listener of [...changes]) listener();
      },
    });
  });
  afterEach(async () => {
    watcher.close();
    for (const driver of drivers.splice(0)) await driver.close();
    temp.remove();
  });

  const driver = async (options: Partial<Parameters<typeof startFakeDraDriver>[0]> = {}) => {
    const started = await startFakeDraDriver({ pluginsDir: plugins, driver: 'gpu.example.com', ...options });
    drivers.push(started);
    return started;
  };

  it('follows each driver socket of the directory, by driver, pool and device', async () => {
    const gpu = await driver();
    const nic = await driver({ driver: 'nic.example.com', socketName: 'dra-pod-2.sock' });
    // Not drivers' sockets: a file, a symlink to a socket, a socket with another name, a name that is no driver.
    writeFileSync(join(plugins, 'gpu.example.com', 'dra-file.sock'), '');
    symlinkSync(gpu.socketPath, join(plugins, 'gpu.example.com', 'dra-link.sock'));
    await driver({ driver: 'other.example.com', socketName: 'csi.sock' });
    await driver({ driver: 'Not_A_Driver', socketName: 'dra.sock' });
    watcher.refresh();
    await gpu.streamsOpen(1);
    await nic.streamsOpen(1);
    expect(watcher.streams()).toEqual(['gpu.example.com/dra.sock', 'nic.example.com/dra-pod-2.sock']);
    expect(gpu.openStreams()).toEqual(['v1alpha1']);

    gpu.sendHealth([
      { pool: 'node-a', device: 'gpu-0', health: HEALTHY, at: now() },
      { pool: 'node-a', device: 'gpu-1', health: UNHEALTHY, at: now() },
      { pool: 'node-a', device: 'gpu-2', health: UNKNOWN, at: now() },
    ]);
    nic.sendHealth([{ pool: 'node-a', device: 'gpu-0', health: UNHEALTHY, at: now() }]);
    await until(changes, () => watcher.health('nic.example.com', 'node-a', 'gpu-0') !== undefined, 'nic');
    await until(changes, () => watcher.health('gpu.example.com', 'node-a', 'gpu-0') !== undefined, 'gpu');
    expect(watcher.health('gpu.example.com', 'node-a', 'gpu-0')).toBe('Healthy');
    expect(watcher.health('gpu.example.com', 'node-a', 'gpu-1')).toBe('Unhealthy');
    expect(watcher.health('gpu.example.com', 'node-a', 'gpu-2')).toBe('Unknown');
    expect(watcher.health('gpu.example.com', 'node-b', 'gpu-0')).toBeUndefined();
    expect(watcher.health('nic.example.com', 'node-a', 'gpu-0')).toBe('Unhealthy');

    // Each message is the full list: a device left out is no longer known.
    gpu.sendHealth([{ pool: 'node-a', device: 'gpu-1', health: HEALTHY, at: now() }]);
    await until(changes, () => watcher.health('gpu.example.com', 'node-a', 'gpu-1') === 'Healthy', 'update');
    expect(watcher.health('gpu.example.com', 'node-a', 'gpu-0')).toBeUndefined();
  });

  it('reads a status older than its timeout (default 30 s) as Unknown, as the kubelet does', async () => {
    const gpu = await driver();
    watcher.refresh();
    await gpu.streamsOpen(1);
    gpu.sendHealth([
      { pool: 'p', device: 'd0', health: HEALTHY, at: now() },
      { pool: 'p', device: 'd1', health: HEALTHY, at: now(), timeoutSeconds: 120 },
    ]);
    await until(changes, () => watcher.health('gpu.example.com', 'p', 'd1') !== undefined, 'health');
    clock.advance(29_000);
    expect(watcher.health('gpu.example.com', 'p', 'd0')).toBe('Healthy');
    clock.advance(2_000);
    expect(watcher.health('gpu.example.com', 'p', 'd0')).toBe('Unknown');
    expect(watcher.health('gpu.example.com', 'p', 'd1')).toBe('Healthy');
  });

  it('asks v1.DRAResourceHealth of a driver that does not serve v1alpha1', async () => {
    const gpu = await driver({ healthServices: ['v1'] });
    watcher.refresh();
    // v1alpha1 is refused (UNIMPLEMENTED): the next refresh asks v1 at once.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no v1 stream')), WAIT_MS);
      const poll = setInterval(() => {
        watcher.refresh();
        if (gpu.openStreams().length === 0) return;
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }, 20);
    });
    expect(gpu.openStreams()).toEqual(['v1']);
    gpu.sendHealth([{ pool: 'p', device: 'd0', health: UNHEALTHY, at: now() }]);
    await until(changes, () => watcher.health('gpu.example.com', 'p', 'd0') === 'Unhealthy', 'v1 health');
  });

  it('clears the health of a stream that ends and opens it again after 5 s; drops a socket that is gone', async () => {
    const gpu = await driver();
    watcher.refresh();
    await gpu.streamsOpen(1);
    gpu.sendHealth([{ pool: 'p', device: 'd0', health: HEALTHY, at: now() }]);
    await until(changes, () => watcher.health('gpu.example.com', 'p', 'd0') === 'Healthy', 'health');
    gpu.endStreams();
    await until(changes, () => watcher.health('gpu.example.com', 'p', 'd0') === undefined, 'cleared');
    expect(watcher.streams()).toEqual([]);
    clock.advance(4_000);
    watcher.refresh();
    expect(watcher.streams()).toEqual([]);
    clock.advance(1_000);
    watcher.refresh();
    expect(watcher.streams()).toEqual(['gpu.example.com/dra.sock']);
    await gpu.streamsOpen(1);

    rmSync(gpu.socketPath);
    watcher.refresh();
    expect(watcher.streams()).toEqual([]);
  });
  it('says once that the directory is missing (info) and finds drivers once it is there', async () => {
    const lines: string[] = [];
    const log = (level: string) => (_fields: object, message: string) =>
      void lines.push(`${level} ${message}`);
    const missing = join(temp.path, 'later');
    const late = createDraHealthWatcher({
      pluginsDir: missing,
      clock,
      logger: { debug: () => undefined, info: log('info'), warn: log('warn'), error: log('error') },
    });
    late.refresh();
    late.refresh();
    expect(lines).toEqual(['info DRA plugins directory not readable: no DRA device health']);
    const gpu = await startFakeDraDriver({ pluginsDir: missing, driver: 'gpu.example.com' });
    drivers.push(gpu);
    late.refresh();
    expect(late.streams()).toEqual(['gpu.example.com/dra.sock']);
    await gpu.streamsOpen(1);
    late.close();
  });
});
