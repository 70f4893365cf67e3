import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandDevGlob } from './expand-dev-glob';

describe('expandDevGlob', () => {
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
    expect(await expandDevGlob(root, '/dev/ttyUSB*')).toEqual([
      '/dev/ttyUSB0',
      '/dev/ttyUSB2',
      '/dev/ttyUSB10',
    ]);
    expect(await expandDevGlob(root, '/dev/snd/pcm*')).toEqual(['/dev/snd/pcmC0D0c']);
    expect(await expandDevGlob(root, '/dev/*/control*')).toEqual(['/dev/snd/controlC0']);
    expect(await expandDevGlob(root, '/dev/ttyACM0')).toEqual(['/dev/ttyACM0']);
    expect(await expandDevGlob(root, '/dev/ttyACM1')).toEqual([]);
  });

  it('never leaves the dev root', async () => {
    expect(await expandDevGlob(root, '/dev/../etc/passwd')).toEqual([]);
    expect(await expandDevGlob(root, '/etc/*')).toEqual([]);
  });
});
