import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, type TempDir } from '../testing/temp-dir';
import { createDevfs } from './create-devfs';

describe('Devfs.node', () => {
  let devDir: TempDir;
  let outsideDir: TempDir;
  let dev: string;
  let outside: string;
  beforeAll(() => {
    devDir = createTempDir('kdp-dev-');
    outsideDir = createTempDir('kdp-outside-');
    dev = devDir.path;
    outside = outsideDir.path;
    writeFileSync(join(outside, 'secret'), 'c 1:3\n');
    mkdirSync(join(dev, 'dri', 'by-path'), { recursive: true });
    writeFileSync(join(dev, 'nvidia0'), 'c 195:0\n');
    writeFileSync(join(dev, 'dri', 'card1'), 'c 226:1\n');
    writeFileSync(join(dev, 'bogus'), 'not a node\n');
    writeFileSync(join(dev, 'empty'), '');
    symlinkSync('nvidia0', join(dev, 'link0'));
    symlinkSync('../card1', join(dev, 'dri', 'by-path', 'pci-0000:03:00.0-card'));
    symlinkSync(join(outside, 'secret'), join(dev, 'escape'));
    symlinkSync('missing', join(dev, 'dangling'));
  });
  afterAll(() => {
    devDir.remove();
    outsideDir.remove();
  });

  it('accepts a real character device', async () => {
    expect(await createDevfs('/dev').node('/dev/null')).toEqual({ ok: true, kind: 'char' });
  });

  it('accepts a kdp-replay placeholder, also through links that stay inside the root', async () => {
    const devfs = createDevfs(dev);
    expect(await devfs.node('/dev/nvidia0')).toEqual({ ok: true, kind: 'placeholder' });
    expect(await devfs.node('/dev/link0')).toEqual({ ok: true, kind: 'placeholder' });
    expect(await devfs.node('/dev/dri/by-path/pci-0000:03:00.0-card')).toEqual({
      ok: true,
      kind: 'placeholder',
    });
    expect(await devfs.hasNode('/dev/dri/card1')).toBe(true);
  });

  it('refuses missing nodes, other files, directories, links out of the root and paths outside /dev', async () => {
    const devfs = createDevfs(dev);
    expect(await devfs.node('/dev/nvidia1')).toEqual({ ok: false, reason: '/dev/nvidia1 is missing' });
    expect(await devfs.node('/dev/dangling')).toEqual({ ok: false, reason: '/dev/dangling is missing' });
    for (const path of ['/dev/bogus', '/dev/empty', '/dev/dri']) {
      expect(await devfs.node(path)).toEqual({ ok: false, reason: `${path} is not a character device` });
    }
    expect(await devfs.node('/dev/escape')).toEqual({
      ok: false,
      reason: '/dev/escape leads outside the /dev root',
    });
    expect(await devfs.node('/dev/../etc/passwd')).toEqual({
      ok: false,
      reason: '/dev/../etc/passwd: not under /dev',
    });
    expect(await devfs.node('/etc/passwd')).toEqual({ ok: false, reason: '/etc/passwd: not under /dev' });
    expect(await devfs.hasNode('/dev')).toBe(false);
  });

  it('lists /dev directories inside the root only and maps host paths onto the root', async () => {
    const devfs = createDevfs(dev);
    expect(await devfs.list('/dev/dri')).toEqual(['by-path', 'card1']);
    expect(await devfs.list('/dev')).toContain('nvidia0');
    expect(await devfs.list('/dev/escape')).toEqual([]);
    expect(await devfs.list('/proc')).toEqual([]);
    expect(devfs.localPath('/dev/dri')).toBe(join(dev, 'dri'));
    expect(devfs.localPath('/dev')).toBe(dev);
    expect(devfs.localPath('/sys/bus')).toBeUndefined();
  });

  it('answers for a root that does not exist without throwing', async () => {
    const devfs = createDevfs(join(dev, 'no-such-root'));
    expect(await devfs.node('/dev/nvidia0')).toEqual({ ok: false, reason: '/dev/nvidia0 is missing' });
    expect(await devfs.glob('/dev/*')).toEqual([]);
  });
});
