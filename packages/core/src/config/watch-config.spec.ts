import { EventEmitter } from 'node:events';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { ConfigError } from './config-error';
import { watchConfig, type ConfigChange, type ConfigReloadReason, type ConfigWatcher } from './watch-config';

const schema = z.object({ level: z.number().int().min(0), name: z.string().default('x') });
type Config = z.output<typeof schema>;

/** Collects watcher events and lets a test wait for the next one (bounded by a generous timeout). */
function recorder() {
  const events: Array<
    | { kind: 'change'; change: ConfigChange<Config> }
    | { kind: 'error'; error: Error; reason: ConfigReloadReason }
  > = [];
  const waiters: Array<() => void> = [];
  const push = (event: (typeof events)[number]) => {
    events.push(event);
    waiters.splice(0).forEach((w) => w());
  };
  return {
    events,
    onChange: (change: ConfigChange<Config>) => push({ kind: 'change', change }),
    onError: (error: Error, reason: ConfigReloadReason) => push({ kind: 'error', error, reason }),
    async next(count: number) {
      const deadline = Date.now() + 20_000;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for event ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1000).unref();
        });
      }
      return events[count - 1];
    },
  };
}

let temp: TempDir;
let dir: string;
let watcher: ConfigWatcher<Config> | undefined;
beforeEach(() => {
  temp = createTempDir('kdp-w-');
  dir = temp.path;
});
afterEach(() => {
  watcher?.close();
  watcher = undefined;
  temp.remove();
});

/** Writes like an editor does: a new file renamed over the old one. */
async function replace(file: string, text: string): Promise<void> {
  await writeFile(`${file}.swp`, text);
  await rename(`${file}.swp`, file);
}

describe('watchConfig', () => {
  it('rejects a bad file at start with a ConfigError', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: -1\n');
    await expect(
      watchConfig({ file, schema, onChange: () => undefined, onError: () => undefined, signals: null }),
    ).rejects.toThrow(
      new ConfigError(file, [{ path: 'level', message: 'Too small: expected number to be >=0' }]),
    );
  });

  it('reloads valid → invalid (kept, reported) → valid on file change', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: 1\n');
    const rec = recorder();
    watcher = await watchConfig({ file, schema, ...rec, debounceMs: 20, signals: null });
    expect(watcher.current).toEqual({ level: 1, name: 'x' });

    await replace(file, 'level: 2\n');
    const first = await rec.next(1);
    expect(first).toMatchObject({
      kind: 'change',
      change: { value: { level: 2 }, previous: { level: 1 }, reason: 'file' },
    });

    await replace(file, 'level: nope\n');
    const second = await rec.next(2);
    expect(second?.kind).toBe('error');
    expect(second?.kind === 'error' && second.error.message).toBe(
      `${file}: level: expected number, received string`,
    );
    expect(watcher.current.level).toBe(2);

    await replace(file, 'level: 3\nname: y\n');
    const third = await rec.next(3);
    expect(third).toMatchObject({
      kind: 'change',
      change: { value: { level: 3, name: 'y' }, previous: { level: 2 } },
    });
    expect(watcher.current).toEqual({ level: 3, name: 'y' });
  });

  it('follows a Kubernetes ConfigMap volume swapping its ..data symlink', async () => {
    const write = async (version: string, text: string) => {
      await mkdir(join(dir, version));
      await writeFile(join(dir, version, 'config.yaml'), text);
    };
    await write('..2026_01_01_00_00_00.1', 'level: 1\n');
    await symlink('..2026_01_01_00_00_00.1', join(dir, '..data'));
    await symlink('..data/config.yaml', join(dir, 'config.yaml'));
    const file = join(dir, 'config.yaml');
    const rec = recorder();
    watcher = await watchConfig({ file, schema, ...rec, debounceMs: 20, signals: null });
    expect(watcher.current.level).toBe(1);

    // What the kubelet's atomic writer does: new timestamped dir, new symlink, rename over ..data, old dir gone.
    await write('..2026_01_01_00_01_00.2', 'level: 7\n');
    await symlink('..2026_01_01_00_01_00.2', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await rm(join(dir, '..2026_01_01_00_00_00.1'), { recursive: true });

    expect(await rec.next(1)).toMatchObject({
      kind: 'change',
      change: { value: { level: 7 }, reason: 'file' },
    });
  });

  it('reloads on SIGHUP even when the text is unchanged, and not on an unchanged file event', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: 1\n');
    const signals = new EventEmitter();
    const rec = recorder();
    watcher = await watchConfig({ file, schema, ...rec, signals, pollIntervalMs: 0 });
    expect(await watcher.reload('file')).toBe(false);
    signals.emit('SIGHUP');
    expect(await rec.next(1)).toMatchObject({
      kind: 'change',
      change: { value: { level: 1 }, reason: 'signal' },
    });
    watcher.close();
    expect(signals.listenerCount('SIGHUP')).toBe(0);
  });

  it('reports a file that disappeared and keeps the running configuration', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: 4\n');
    const rec = recorder();
    watcher = await watchConfig({ file, schema, ...rec, signals: null, pollIntervalMs: 0 });
    await rm(file);
    expect(await watcher.reload()).toBe(false);
    expect(rec.events).toEqual([{ kind: 'error', error: expect.any(ConfigError), reason: 'manual' }]);
    expect(rec.events[0]?.kind === 'error' && rec.events[0].error.message).toBe(`${file}: file not found`);
    expect(watcher.current.level).toBe(4);
  });

  it('stops when its AbortSignal fires', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: 1\n');
    const controller = new AbortController();
    const signals = new EventEmitter();
    const rec = recorder();
    watcher = await watchConfig({ file, schema, ...rec, signals, signal: controller.signal });
    controller.abort();
    expect(signals.listenerCount('SIGHUP')).toBe(0);
    await writeFile(file, 'level: 2\n');
    expect(await watcher.reload()).toBe(false);
    expect(rec.events).toEqual([]);
  });

  it('passes exceptions thrown by onChange to onError and keeps watching', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, 'level: 1\n');
    const errors: Error[] = [];
    watcher = await watchConfig({
      file,
      schema,
      signals: null,
      onChange: () => {
        throw new Error('listener failed');
      },
      onError: (e) => errors.push(e),
    });
    await writeFile(file, 'level: 2\n');
    expect(await watcher.reload()).toBe(true);
    expect(errors.map((e) => e.message)).toEqual(['listener failed']);
  });
});
