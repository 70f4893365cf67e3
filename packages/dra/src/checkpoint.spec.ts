import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCheckpoint, readBootId, type CheckpointEvent, type PreparedClaimRecord } from './checkpoint';
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

  let events: CheckpointEvent[];
  beforeEach(() => (events = []));
  const open = (lock?: { staleMs?: number; timeoutMs?: number }) =>
    createCheckpoint({
      dir: join(dirs.root, 'data'),
      procRoot: dirs.proc,
      now: () => 42,
      onEvent: (event) => events.push(event),
      lock,
    });
  const save = async (checkpoint: ReturnType<typeof open>, claims: Map<string, PreparedClaimRecord>) => {
    await checkpoint.update((current) => {
      current.clear();
      for (const [uid, claim] of claims) current.set(uid, claim);
    });
  };
  const recordOf = (uid: string): PreparedClaimRecord => ({ ...record, uid, name: uid });

  it('starts empty without a file and reads back what it saved, as a 0600 file with version and checksum', async () => {
    const checkpoint = open();
    expect(await checkpoint.load()).toEqual({ claims: new Map(), bootId: 'boot-1' });
    await save(checkpoint, new Map([['uid-a', record]]));
    expect(statSync(checkpoint.path).mode & 0o777).toBe(0o600);
    const text = readFileSync(checkpoint.path, 'utf8');
    const file = JSON.parse(text);
    expect(text).toBe(`${JSON.stringify(file)}\n`);
    expect(file).toEqual({
      version: 1,
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      data: expect.anything(),
    });
    expect(await open().load()).toEqual({ claims: new Map([['uid-a', record]]), bootId: 'boot-1' });
  });

  it('discards the records of another boot (reported once) and saves the empty state under this boot ID', async () => {
    await save(open(), new Map([['uid-a', record]]));
    dirs.setBootId('boot-2');
    expect(await open().read()).toEqual(new Map());
    const loaded = await open().load();
    expect(loaded.previousBootId).toBe('boot-1');
    expect(loaded.claims).toEqual(new Map());
    expect(events).toEqual([
      { type: 'rebooted', previousBootId: 'boot-1', bootId: 'boot-2', discarded: ['uid-a'] },
    ]);
    expect((await open().load()).previousBootId).toBeUndefined();
    expect(events).toHaveLength(1);
  });

  it('re-reads the file under the lock for every change: two instances never lose each other’s records', async () => {
    const a = open();
    const b = open();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).update((claims) => void claims.set(`uid-${i}`, recordOf(`uid-${i}`))),
      ),
    );
    expect([...(await a.read()).keys()].sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `uid-${i}`).sort(),
    );
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? b : a).update((claims) => void claims.delete(`uid-${i}`)),
      ),
    );
    expect(await b.read()).toEqual(new Map());
    expect(existsSync(a.lockPath)).toBe(false);
  });

  it('waits for a live holder of the lock, and takes over the lock of one that died holding it', async () => {
    const checkpoint = open({ staleMs: 60_000, timeoutMs: 200 });
    await save(checkpoint, new Map());
    const held = { token: 't', owner: 'pod old, pid 7', pid: 7, acquiredAt: Date.now() };
    writeFileSync(checkpoint.lockPath, JSON.stringify(held));
    await expect(checkpoint.update(() => undefined)).rejects.toThrow(
      /checkpoint lock .*checkpoint\.json\.lock is held by pod old, pid 7/,
    );
    // The same holder, gone for longer than the stale bound: its lock is taken over.
    writeFileSync(checkpoint.lockPath, JSON.stringify({ ...held, acquiredAt: Date.now() - 120_000 }));
    await save(checkpoint, new Map([['uid-a', record]]));
    expect((await checkpoint.read()).get('uid-a')).toEqual(record);
    expect(existsSync(checkpoint.lockPath)).toBe(false);
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
    await save(checkpoint, new Map([['uid-a', record]]));
    writeFileSync(checkpoint.path, text);
    const loaded = await checkpoint.load();
    expect(loaded.claims.size).toBe(0);
    expect(loaded.corrupt?.reason).toMatch(reason);
    expect(loaded.corrupt?.movedTo).toBe(`${checkpoint.path}.corrupt-42`);
    expect(readFileSync(`${checkpoint.path}.corrupt-42`, 'utf8')).toBe(text);
    expect(existsSync(checkpoint.path)).toBe(false);
  });

  it('makes its directory, 0700, when it is missing, also when removed after the first save', async () => {
    const checkpoint = open();
    await save(checkpoint, new Map([['uid-a', record]]));
    const dir = join(dirs.root, 'data');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    rmSync(dir, { recursive: true });
    await save(checkpoint, new Map([['uid-b', recordOf('uid-b')]]));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect([...(await checkpoint.read()).keys()]).toEqual(['uid-b']);
    expect(existsSync(checkpoint.lockPath)).toBe(false);
  });

  it('detects an edited claim through the checksum', async () => {
    const checkpoint = open();
    await save(checkpoint, new Map([['uid-a', record]]));
    writeFileSync(checkpoint.path, readFileSync(checkpoint.path, 'utf8').replace('gpu-0', 'gpu-7'));
    expect((await checkpoint.load()).corrupt?.reason).toBe('checksum mismatch');
  });

  it('reads the boot ID through the proc root, empty when unreadable', async () => {
    expect(await readBootId(dirs.proc)).toBe('boot-1');
    expect(await readBootId(join(dirs.root, 'nowhere'))).toBe('');
  });
});
