import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCheckpoint, readBootId, type PreparedClaimRecord } from './checkpoint';
import { createTestDirs } from './dra-test.fixture';

const record: PreparedClaimRecord = {
  namespace: 'default',
  name: 'a',
  uid: 'uid-a',
  state: 'PrepareCompleted',
  results: [{ request: 'gpu', driver: 'gpu.kdp.dev', pool: 'node-1', device: 'gpu-0' }],
  devices: [{ requestNames: ['gpu'], poolName: 'node-1', deviceName: 'gpu-0', cdiDeviceIds: ['v.dev/c=x'] }],
  cdi: { devices: [{ name: 'x', containerEdits: { env: ['A=1'] } }] },
};

describe('createCheckpoint', () => {
  let dirs: ReturnType<typeof createTestDirs>;
  beforeEach(() => (dirs = createTestDirs()));
  afterEach(() => dirs.remove());

  const open = () => createCheckpoint({ dir: join(dirs.root, 'data'), procRoot: dirs.proc, now: () => 42 });

  it('starts empty without a file and reads back what it saved, as a 0600 file with version and checksum', async () => {
    const checkpoint = open();
    expect(await checkpoint.load()).toEqual({ claims: new Map(), bootId: 'boot-1' });
    await checkpoint.save(new Map([['uid-a', record]]));
    expect(statSync(checkpoint.path).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(checkpoint.path, 'utf8'));
    expect(file).toEqual({
      version: 1,
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      data: expect.anything(),
    });
    expect(await open().load()).toEqual({ claims: new Map([['uid-a', record]]), bootId: 'boot-1' });
  });

  it('reports a reboot once and re-saves under the new boot ID', async () => {
    await open().save(new Map([['uid-a', record]]));
    dirs.setBootId('boot-2');
    const loaded = await open().load();
    expect(loaded.previousBootId).toBe('boot-1');
    expect(loaded.claims.get('uid-a')).toEqual(record);
    expect((await open().load()).previousBootId).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"version":1,', /^not JSON/],
    [
      'another version',
      JSON.stringify({ version: 2, checksum: '', data: { bootId: '', claims: {} } }),
      /^version 2/,
    ],
    ['no claims', JSON.stringify({ version: 1, checksum: '', data: { bootId: 'b' } }), /claims is missing/],
    ['a JSON array', '[]', /^version undefined/],
  ])('moves a file with %s aside and starts empty', async (_name, text, reason) => {
    const checkpoint = open();
    await checkpoint.save(new Map());
    writeFileSync(checkpoint.path, text);
    const loaded = await checkpoint.load();
    expect(loaded.claims.size).toBe(0);
    expect(loaded.corrupt?.reason).toMatch(reason);
    expect(loaded.corrupt?.movedTo).toBe(`${checkpoint.path}.corrupt-42`);
    expect(readFileSync(`${checkpoint.path}.corrupt-42`, 'utf8')).toBe(text);
    expect(existsSync(checkpoint.path)).toBe(false);
  });

  it('detects an edited claim through the checksum', async () => {
    const checkpoint = open();
    await checkpoint.save(new Map([['uid-a', record]]));
    writeFileSync(checkpoint.path, readFileSync(checkpoint.path, 'utf8').replace('gpu-0', 'gpu-7'));
    expect((await checkpoint.load()).corrupt?.reason).toBe('checksum mismatch');
  });

  it('reads the boot ID through the proc root, empty when unreadable', async () => {
    expect(await readBootId(dirs.proc)).toBe('boot-1');
    expect(await readBootId(join(dirs.root, 'nowhere'))).toBe('');
  });
});
