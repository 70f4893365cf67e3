import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeviceInfoStore } from './device-info-store';

describe('createDeviceInfoStore', () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'devinfo-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('writes 0444 files named as upstream, replaces them, prunes those of devices gone and removes them', async () => {
    const dir = join(base, 'dp');
    const store = createDeviceInfoStore(dir);
    await Promise.all([
      store.write('intel.com/a', '0000:3b:02.0', '{"v":1}'),
      store.write('intel.com/a', '0000:3b:02.0', '{"v":2}'),
      store.write('intel.com/a', '0000:3b:02.1', '{"v":3}'),
    ]);
    const file = join(dir, 'intel.com-a-0000:3b:02.0-device.json');
    expect(['{"v":1}', '{"v":2}']).toContain(readFileSync(file, 'utf8'));
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual([
      'intel.com-a-0000:3b:02.0-device.json',
      'intel.com-a-0000:3b:02.1-device.json',
    ]);
    await store.write('intel.com/b', '0000:d8:00.2', '{"v":4}');
    const keep = new Map([['intel.com/a', new Set(['0000:3b:02.1'])]]);
    expect(await store.prune(keep)).toEqual(['intel.com/a 0000:3b:02.0', 'intel.com/b 0000:d8:00.2']);
    expect(readdirSync(dir)).toEqual(['intel.com-a-0000:3b:02.1-device.json']);
    await store.removeAll();
    expect(readdirSync(dir)).toEqual([]);
  });
});
