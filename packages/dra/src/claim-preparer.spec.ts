import { readFileSync } from 'node:fs';
import { createCheckpoint } from './checkpoint';
import { syncDirectory } from './sync-directory';
import { createClaimPreparer, type ClaimPreparer, type DraDriver } from './claim-preparer';
import { allocatedClaim, createFakeClaimReader, createTestDirs } from './dra-test.fixture';

describe('createClaimPreparer', () => {
  let dirs: ReturnType<typeof createTestDirs>;
  beforeEach(() => (dirs = createTestDirs()));
  afterEach(() => dirs.remove());

  /** The directory syncs of the checkpoint, with what the checkpoint held at each. */
  let syncs: string[];
  beforeEach(() => (syncs = []));

  function setup(driver: DraDriver): {
    preparer: ClaimPreparer;
    reader: ReturnType<typeof createFakeClaimReader>;
  } {
    const reader = createFakeClaimReader([
      allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]),
      allocatedClaim('b', 'uid-b', [{ device: 'gpu-1' }]),
    ]);
    const preparer = createClaimPreparer({
      driverName: 'gpu.kdp.dev',
      nodeName: 'node-1',
      driver,
      claims: reader,
      checkpoint: createCheckpoint({
        dir: dirs.plugins,
        procRoot: dirs.proc,
        async syncDirectory(dir) {
          const { claims } = JSON.parse(readFileSync(`${dir}/checkpoint.json`, 'utf8')).data;
          syncs.push(
            Object.entries(claims)
              .map(([uid, c]) => `${uid}:${(c as { state: string }).state}`)
              .join(','),
          );
          await syncDirectory(dir);
        },
      }),
      cdi: { dir: dirs.cdi },
    });
    return { preparer, reader };
  }

  const plain: DraDriver = {
    decodeConfig: (parameters) => parameters,
    prepare: async ({ results }) => ({
      devices: results.map((r) => ({ requestNames: [], poolName: r.pool, deviceName: r.device })),
    }),
  };

  it('runs calls one at a time: the second call starts only when the first has answered', async () => {
    const { preparer, reader } = setup(plain);
    await preparer.load();
    const release = reader.hold('default/a');
    const order: string[] = [];
    const first = preparer
      .prepare([{ namespace: 'default', name: 'a', uid: 'uid-a' }])
      .then(() => order.push('a'));
    const second = preparer
      .prepare([{ namespace: 'default', name: 'b', uid: 'uid-b' }])
      .then(() => order.push('b'));
    const third = preparer
      .unprepare([{ namespace: 'default', name: 'a', uid: 'uid-a' }])
      .then(() => order.push('-a'));
    // Unserialized, b's GET would follow a's within the same turns of the event loop (after a checkpoint read).
    const deadline = Date.now() + 5000;
    while (reader.calls.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(reader.calls).toEqual(['default/a']);
    release();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['a', 'b', '-a']);
    expect(reader.calls).toEqual(['default/a', 'default/b']);
    expect([...preparer.prepared().keys()]).toEqual(['uid-b']);
  });

  it('keeps going after a rejected call: a failure does not poison the queue', async () => {
    let fail = true;
    const { preparer } = setup({
      decodeConfig: (parameters) => parameters,
      prepare: async (input) => {
        if (fail) throw new Error('boom');
        return plain.prepare(input);
      },
    });
    await preparer.load();
    const a = { namespace: 'default', name: 'a', uid: 'uid-a' };
    expect((await preparer.prepare([a])).get('uid-a')?.error).toMatch(/boom/);
    fail = false;
    expect((await preparer.prepare([a])).get('uid-a')?.devices?.map((d) => d.deviceName)).toEqual(['gpu-0']);
  });

  it('answers a claim with an empty field with its own error', async () => {
    const { preparer } = setup(plain);
    await preparer.load();
    const outcomes = await preparer.prepare([{ namespace: '', name: 'a', uid: 'uid-a' }]);
    expect(outcomes.get('uid-a')?.error).toMatch(/claim namespace is empty/);
  });

  it('makes one durable write per call for all its claims, none for claims answered from the checkpoint', async () => {
    const { preparer, reader } = setup(plain);
    await preparer.load();
    const a = { namespace: 'default', name: 'a', uid: 'uid-a' };
    const b = { namespace: 'default', name: 'b', uid: 'uid-b' };
    const first = await preparer.prepare([a, b]);
    expect([...first.values()].map((o) => o.error)).toEqual([undefined, undefined]);
    // The PrepareStarted records are renamed into place but not synced; the completed ones are, once.
    expect(syncs).toEqual(['uid-a:PrepareCompleted,uid-b:PrepareCompleted']);
    expect(await preparer.prepare([b, a])).toEqual(first);
    expect(syncs).toHaveLength(1);
    expect(reader.calls).toEqual(['default/a', 'default/b']);
    expect([...(await preparer.unprepare([a, b])).values()]).toEqual(['', '']);
    expect(syncs).toEqual(['uid-a:PrepareCompleted,uid-b:PrepareCompleted', '']);
  });
});
