import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, type TempDir } from '../testing/temp-dir';
import { createDevfs } from './create-devfs';

describe('Devfs.glob', () => {
  let temp: TempDir;
  let root: string;
  beforeEach(() => {
    temp = createTempDir('kdp-dev-');
    root = temp.path;
    for (const f of ['ttyUSB0', 'ttyUSB10', 'ttyUSB2', 'ttyACM0', 'snd/pcmC0D0c', 'snd/controlC0']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
    }
  });
  afterEach(() => temp.remove());

  it('matches one segment at a time, sorted naturally, as host paths', async () => {
    const devfs = createDevfs(root);
    expect(await devfs.glob('/dev/ttyUSB*')).toEqual(['/dev/ttyUSB0', '/dev/ttyUSB2', '/dev/ttyUSB10']);
    expect(await devfs.glob('/dev/snd/pcm*')).toEqual(['/dev/snd/pcmC0D0c']);
    expect(await devfs.glob('/dev/*/control*')).toEqual(['/dev/snd/controlC0']);
    expect(await devfs.glob('/dev/ttyACM0')).toEqual(['/dev/ttyACM0']);
    expect(await devfs.glob('/dev/snd')).toEqual(['/dev/snd']);
    expect(await devfs.glob('/dev/ttyACM1')).toEqual([]);
  });

  it('never leaves the dev root', async () => {
    const outsideDir = createTempDir('kdp-outside-');
    const outside = outsideDir.path;
    try {
      writeFileSync(join(outside, 'ttyUSB9'), '');
      symlinkSync(join(outside, 'ttyUSB9'), join(root, 'ttyUSB9'));
      symlinkSync(outside, join(root, 'elsewhere'));
      const devfs = createDevfs(root);
      expect(await devfs.glob('/dev/ttyUSB*')).toEqual(['/dev/ttyUSB0', '/dev/ttyUSB2', '/dev/ttyUSB10']);
      expect(await devfs.glob('/dev/elsewhere/*')).toEqual([]);
      expect(await devfs.glob('/dev/../etc/passwd')).toEqual([]);
      expect(await devfs.glob('/etc/*')).toEqual([]);
    } finally {
      outsideDir.remove();
    }
  });
});
