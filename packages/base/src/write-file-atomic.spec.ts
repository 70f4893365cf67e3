import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from './write-file-atomic';

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kdp-atomic-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the file with a new inode, in the mode asked for, and leaves no temporary file', async () => {
    const path = join(dir, 'spec.json');
    writeFileSync(path, 'old');
    const before = statSync(path).ino;
    await writeFileAtomic(path, 'new', { mode: 0o600 });
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).ino).not.toBe(before);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['spec.json']);
  });

  it('removes the temporary file and rethrows when the rename fails', async () => {
    mkdirSync(join(dir, 'sub', 'inner'), { recursive: true }); // renaming a file over a directory fails
    await expect(writeFileAtomic(join(dir, 'sub'), 'data')).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(['sub']);
    await expect(writeFileAtomic(join(dir, 'missing', 'x'), 'data')).rejects.toThrow(/ENOENT/);
  });
});
