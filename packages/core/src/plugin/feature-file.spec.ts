import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeatureFile, FEATURE_FILE_MAX_BYTES, formatFeatureFile } from './feature-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kdp-features-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('formatFeatureFile', () => {
  it('writes the comment, then name=value lines in name order', () => {
    expect(formatFeatureFile({ 'b.com/y': '2', 'a.com/x': '' }, 'by test')).toBe(
      '# by test\na.com/x=\nb.com/y=2\n',
    );
  });
});

describe('createFeatureFile', () => {
  it('replaces the file by a rename (a new inode each time), mode 0644, leaving no temporary file', async () => {
    const file = createFeatureFile({ dir, name: 'kdp-test', comment: 'test' });
    expect(await file.write({ 'example.com/a': '1' })).toBe(true);
    const first = statSync(file.path);
    expect(readFileSync(file.path, 'utf8')).toBe('# test\nexample.com/a=1\n');
    expect(first.mode & 0o777).toBe(0o644);
    expect(await file.write({ 'example.com/a': '2' })).toBe(true);
    const second = statSync(file.path);
    expect(readFileSync(file.path, 'utf8')).toBe('# test\nexample.com/a=2\n');
    expect(second.ino).not.toBe(first.ino);
    expect(readdirSync(dir)).toEqual(['kdp-test']);
  });

  it('writes nothing when the labels are what it last wrote', async () => {
    const file = createFeatureFile({ dir, name: 'kdp-test' });
    await file.write({ 'example.com/a': '1' });
    const before = statSync(file.path).ino;
    expect(await file.write({ 'example.com/a': '1' })).toBe(false);
    expect(statSync(file.path).ino).toBe(before);
  });

  it('removes the file when there are no labels, and on remove()', async () => {
    writeFileSync(join(dir, 'kdp-test'), 'example.com/stale=1\n'); // left by an earlier run
    const file = createFeatureFile({ dir, name: 'kdp-test' });
    expect(await file.write({})).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    await file.write({ 'example.com/a': '1' });
    await file.remove();
    await file.remove(); // nothing left to remove: fine
    expect(readdirSync(dir)).toEqual([]);
  });

  it('throws when the directory is missing, and writes once it exists', async () => {
    const missing = join(dir, 'features.d');
    const file = createFeatureFile({ dir: missing, name: 'kdp-test' });
    await expect(file.write({ 'example.com/a': '1' })).rejects.toThrow(/ENOENT/);
    mkdirSync(missing);
    expect(await file.write({ 'example.com/a': '1' })).toBe(true);
    expect(readdirSync(missing)).toEqual(['kdp-test']);
  });

  it('refuses more than NFD reads, and names that NFD would skip', async () => {
    const file = createFeatureFile({ dir, name: 'kdp-test' });
    const many = Object.fromEntries(
      Array.from({ length: FEATURE_FILE_MAX_BYTES / 40 }, (_, i) => [`example.com/l${i}`, 'v'.repeat(30)]),
    );
    await expect(file.write(many)).rejects.toThrow(/over the 65536 that NFD reads/);
    expect(readdirSync(dir)).toEqual([]);
    expect(() => createFeatureFile({ dir, name: '.hidden' })).toThrow(/not starting with a dot/);
  });
});
