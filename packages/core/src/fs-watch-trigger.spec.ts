import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFsWatchTrigger } from './fs-watch-trigger';
import { createTempDir } from '@kdp/topology/testing';

describe('createFsWatchTrigger', () => {
  it('fires when a watched directory changes, skips unwatchable paths, and stops firing once stopped', async () => {
    const tmp = createTempDir();
    try {
      let fired = 0;
      let wake: () => void = () => undefined;
      const stop = createFsWatchTrigger([join(tmp.path, 'missing'), tmp.path])(() => {
        fired += 1;
        wake();
      });
      const firedOnce = new Promise<void>((resolve) => (wake = resolve));
      writeFileSync(join(tmp.path, 'new-device'), 'x');
      await firedOnce;
      expect(fired).toBeGreaterThan(0);
      stop();
      const before = fired;
      writeFileSync(join(tmp.path, 'another'), 'x');
      // A watch that still fired would have done so by the time this (event-loop-later) write is flushed.
      await new Promise((resolve) => setImmediate(resolve));
      expect(fired).toBe(before);
    } finally {
      tmp.remove();
    }
  });
});
