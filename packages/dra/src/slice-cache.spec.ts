import { silentLogger, systemClock } from '@kdp/base';
import type { KubeClient, KubeWatchEvent } from '@kdp/core';
import { createSliceCache } from './slice-cache';

const slice = (name: string, resourceVersion: string): Record<string, unknown> => ({
  metadata: { name, resourceVersion },
  spec: { driver: 'gpu.example.com', nodeName: 'node-a', pool: { name: 'node-a', generation: 1 } },
});

describe('the ResourceSlice cache', () => {
  it('keeps a slice deleted before the answer to its write arrived out of the cache, and reports the deletion', async () => {
    let onEvent: ((event: KubeWatchEvent) => void) | undefined;
    const client = {
      get: () => Promise.resolve({ metadata: { uid: 'node-uid' } }),
      list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
      watch: (_path: string, listener: (event: KubeWatchEvent) => void) => {
        onEvent = listener;
        return { done: new Promise<void>(() => undefined), stop: () => undefined };
      },
    } as unknown as KubeClient;
    const changes: (number | undefined)[] = [];
    const cache = createSliceCache({
      client,
      discovery: { version: () => Promise.resolve('v1'), rediscover: () => Promise.resolve('v1') },
      driverName: 'gpu.example.com',
      nodeName: 'node-a',
      watchTimeoutSeconds: 300,
      backoff: () => 100,
      clock: systemClock,
      logger: silentLogger,
      onChange: (delayMs) => changes.push(delayMs),
    });
    await cache.list();
    // The slice is created, then wiped (both seen by the watch) before the answer to the create arrives.
    onEvent?.({ type: 'ADDED', object: slice('node-a-gpu-1', '2') });
    onEvent?.({ type: 'DELETED', object: slice('node-a-gpu-1', '3') });
    onEvent?.({ type: 'DELETED', object: slice('node-a-gpu-2', '4') });
    cache.remember(slice('node-a-gpu-1', '2'));
    cache.remember(slice('node-a-gpu-2', '1'));
    cache.remember(slice('node-a-gpu-3', '5'));
    expect(cache.slices().map((s) => s.metadata.name)).toEqual(['node-a-gpu-3']);
    expect(changes).toEqual([undefined, undefined, undefined]);
    cache.stop();
  });
});
