import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, type TempDir } from './temp-dir';
import { changedPaths, snapshotTree } from './snapshot-tree';

describe('snapshotTree / changedPaths', () => {
  let temp: TempDir;
  let dir: string;
  beforeEach(() => {
    temp = createTempDir('kdp-snapshot-');
    dir = temp.path;
    writeFileSync(join(dir, 'a'), 'one');
    writeFileSync(join(dir, 'b'), 'two');
    symlinkSync('a', join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
  });
  afterEach(() => temp.remove());

  it('names every entry written, added, removed or re-pointed, and nothing else', () => {
    const before = snapshotTree(dir);
    expect([...before.keys()]).toEqual(['', 'a', 'b', 'fifo', 'link']);
    expect(before.get('link')).toBe('link -> a');
    writeFileSync(join(dir, 'a'), 'three');
    unlinkSync(join(dir, 'b'));
    writeFileSync(join(dir, 'c'), '');
    unlinkSync(join(dir, 'link'));
    symlinkSync('c', join(dir, 'link'));
    expect(changedPaths(before, snapshotTree(dir))).toEqual(['', 'a', 'b', 'c', 'link']);
  });

  it('does not count bytes passing through a FIFO as a write', () => {
    const before = snapshotTree(dir);
    const fd = openSync(join(dir, 'fifo'), constants.O_RDWR | constants.O_NONBLOCK);
    writeSync(fd, 'bytes');
    closeSync(fd);
    expect(changedPaths(before, snapshotTree(dir))).toEqual([]);
  });
});
