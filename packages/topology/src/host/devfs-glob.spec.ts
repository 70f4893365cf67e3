import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevfs } from './create-devfs';

describe('Devfs.glob', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kdp-dev-'));
    for (const f of ['ttyUSB0', 'ttyUSB10', 'ttyUSB2', 'ttyACM0', 'snd/pcmC0D0c', 'snd/controlC0']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
    }
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

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
    const outside = mkdtempSync(join(tmpdir(), 'kdp-outside-'));
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
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
