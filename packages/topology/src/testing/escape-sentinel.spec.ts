import {
  closeSync,
  constants,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';

describe('createEscapeSentinel', () => {
  let sentinel: EscapeSentinel;
  beforeEach(() => (sentinel = createEscapeSentinel()));
  afterEach(() => sentinel.remove());

  it('marks what only reading or listing reveals, not where its links point', () => {
    expect(sentinel.problems()).toEqual([]);
    const bait = sentinel.path('bait-directory');
    expect(readFileSync(join(bait, 'vendor'), 'utf8')).toBe(`${sentinel.marker}\n`);
    expect(readFileSync(sentinel.path('bait-file'), 'utf8')).toBe(`${sentinel.marker}\n`);
    expect(readdirSync(sentinel.dir)).toContain(sentinel.marker);
    expect(readdirSync(bait)).toContain(sentinel.marker);
    for (const entry of ['directory', 'bait-directory', 'bait-file', 'fifo'] as const)
      expect(sentinel.leaked(sentinel.path(entry))).toBe(false);
    expect(sentinel.leaked(`vendor: ${sentinel.marker}`)).toBe(true);
  });

  it('reports bytes read from its FIFO, even with nothing printed, then re-arms', () => {
    const fd = openSync(sentinel.path('fifo'), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      expect(readSync(fd, Buffer.alloc(5))).toBe(5);
    } finally {
      closeSync(fd);
    }
    expect(sentinel.problems()).toEqual([
      `5 byte(s) were read from the sentinel FIFO ${sentinel.path('fifo')}`,
    ]);
    expect(sentinel.problems()).toEqual([]);
  });

  it('reports entries written, created or removed', () => {
    writeFileSync(join(sentinel.path('bait-directory'), 'vendor'), 'changed\n');
    writeFileSync(join(sentinel.dir, 'new'), '');
    unlinkSync(sentinel.path('bait-file'));
    // The directory itself changed too (an entry added and one removed); sorted by relative path.
    const changed = [
      sentinel.dir,
      sentinel.path('bait-file'),
      join(sentinel.path('bait-directory'), 'vendor'),
    ];
    expect(sentinel.problems()).toEqual(
      [...changed, join(sentinel.dir, 'new')].map(
        (path) => `sentinel entry ${path} was created, changed or removed`,
      ),
    );
  });
});
