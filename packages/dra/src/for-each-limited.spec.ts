import { forEachLimited } from './for-each-limited';

describe('forEachLimited', () => {
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('starts the items in order, never more than the limit at once, and resolves when all are done', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      for (let i = 0; i < item % 3; i += 1) await tick();
      running -= 1;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    expect(running).toBe(0);
  });

  it('rejects with the first failure once the calls in flight have settled, starting no new one', async () => {
    const settled: number[] = [];
    const started: number[] = [];
    const run = forEachLimited([1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      await tick();
      if (item === 1) throw new Error('one failed');
      await tick();
      settled.push(item);
      if (item === 2) throw new Error('two failed too');
    });
    await expect(run).rejects.toThrow('one failed');
    expect(started).toEqual([1, 2]);
    expect(settled).toEqual([2]);
  });
});
