import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDevNode } from './check-dev-node';

describe('checkDevNode', () => {
  let dev: string;
  beforeAll(() => {
    dev = mkdtempSync(join(tmpdir(), 'kdp-dev-'));
    mkdirSync(join(dev, 'dri'));
    writeFileSync(join(dev, 'nvidia0'), 'c 195:0\n');
    writeFileSync(join(dev, 'bogus'), 'not a node\n');
    symlinkSync('nvidia0', join(dev, 'link0'));
  });
  afterAll(() => rmSync(dev, { recursive: true, force: true }));

  it('accepts a real character device', async () => {
    expect(await checkDevNode('/dev', '/dev/null')).toEqual({ ok: true, kind: 'char' });
  });

  it('accepts a kdp-replay placeholder, also through a link', async () => {
    expect(await checkDevNode(dev, '/dev/nvidia0')).toEqual({ ok: true, kind: 'placeholder' });
    expect(await checkDevNode(dev, '/dev/link0')).toEqual({ ok: true, kind: 'placeholder' });
  });

  it('refuses missing nodes, other files, directories and paths outside /dev', async () => {
    expect(await checkDevNode(dev, '/dev/nvidia1')).toEqual({ ok: false, reason: '/dev/nvidia1 is missing' });
    expect(await checkDevNode(dev, '/dev/bogus')).toEqual({
      ok: false,
      reason: '/dev/bogus is not a character device',
    });
    expect(await checkDevNode(dev, '/dev/dri')).toEqual({
      ok: false,
      reason: '/dev/dri is not a character device',
    });
    expect((await checkDevNode(dev, '/dev/../etc/passwd')).ok).toBe(false);
  });
});
