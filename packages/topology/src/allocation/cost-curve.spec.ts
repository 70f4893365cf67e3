import fc from 'fast-check';
import {
  type Bucket,
  bucketRunCurve,
  type CostCurve,
  mergeCurves,
  mergeWithin,
  mergeWork,
} from './cost-curve';

/** Buckets under one parent (cost 3), each pair inside a bucket at 1 or 2; the IDs say their bucket. */
const bucketsArb: fc.Arbitrary<Bucket[]> = fc
  .array(fc.record({ pairCost: fc.constantFrom(1, 2), must: fc.nat(2), rest: fc.nat(3) }), {
    minLength: 1,
    maxLength: 4,
  })
  .map((shapes) =>
    shapes.map(({ pairCost, must, rest }, b) => ({
      pairCost,
      must: Array.from({ length: must }, (_, i) => `b${b}-m${i}`),
      rest: Array.from({ length: rest }, (_, i) => `b${b}-r${i}`),
    })),
  );

/** The cost of `ids` straight from the definition: pairs in one bucket at its cost, others at 3. */
function costOf(ids: readonly string[], buckets: readonly Bucket[]): number {
  const bucketOf = (id: string): number => Number(id.slice(1, id.indexOf('-')));
  let cost = 0;
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const a = bucketOf(ids[i] as string);
      cost += a === bucketOf(ids[j] as string) ? (buckets[a] as Bucket).pairCost : 3;
    }
  }
  return cost;
}

/** The least cost of k devices holding every must-include one, for every k, by trying every subset. */
function bruteForce(buckets: readonly Bucket[]): number[] {
  const must = buckets.flatMap((b) => b.must);
  const rest = buckets.flatMap((b) => b.rest);
  const best: number[] = [];
  for (let mask = 0; mask < 1 << rest.length; mask++) {
    const ids = [...must, ...rest.filter((_, i) => mask & (1 << i))];
    best[ids.length] = Math.min(best[ids.length] ?? Infinity, costOf(ids, buckets));
  }
  return best;
}

function expectValidPick(curve: CostCurve, buckets: readonly Bucket[], k: number, cost: number): void {
  const ids = curve.pick(k, true);
  expect(ids).toHaveLength(k);
  expect(new Set(ids).size).toBe(k);
  for (const id of buckets.flatMap((b) => b.must)) expect(ids).toContain(id);
  expect(costOf(ids, buckets)).toBe(cost);
}

describe('cost curves', () => {
  it('merge buckets to the brute-force optimum for every count, with picks that cost what they say', () => {
    fc.assert(
      fc.property(bucketsArb, (buckets) => {
        const curve = mergeCurves(
          buckets.map((b) => bucketRunCurve([b], 3, 99)),
          3,
          99,
        );
        const best = bruteForce(buckets);
        for (let k = curve.lo; k <= curve.hi; k++) {
          expect(curve.any[k]).toBe(best[k]);
          expectValidPick(curve, buckets, k, curve.any[k] as number);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('solve a run of buckets of one shape in closed form, as merging them one by one does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.nat(2),
        fc.nat(4),
        fc.constantFrom(1, 2, 3),
        fc.integer({ min: 0, max: 30 }),
        (count, must, rest, pairCost, cap) => {
          const buckets: Bucket[] = Array.from({ length: count }, (_, b) => ({
            pairCost,
            must: Array.from({ length: must }, (_, i) => `b${b}-m${i}`),
            rest: Array.from({ length: rest }, (_, i) => `b${b}-r${i}`),
          }));
          fc.pre(count * must <= cap);
          const run = bucketRunCurve(buckets, 3, cap);
          const merged = mergeCurves(
            buckets.map((b) => bucketRunCurve([b], 3, cap)),
            3,
            cap,
          );
          expect([run.lo, run.hi]).toEqual([merged.lo, merged.hi]);
          expect([...run.any]).toEqual([...merged.any]);
          expect([...run.cleanAt]).toEqual([...merged.cleanAt]);
          for (let k = run.lo; k <= run.hi; k++) {
            const ids = run.pick(k, true);
            expect(ids).toHaveLength(k);
            expect(
              buckets.reduce((sum, b, i) => {
                const n = ids.filter((id) => id.startsWith(`b${i}-`)).length;
                return sum + (b.pairCost * n * (n - 1)) / 2;
              }, 0) +
                3 *
                  buckets.reduce((sum, _, i) => {
                    const n = ids.filter((id) => id.startsWith(`b${i}-`)).length;
                    return sum + n * (k - n);
                  }, 0) *
                  0.5,
            ).toBe(run.any[k]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with a target, hold that count as the full merge does; coarse, a valid choice costing no less', () => {
    fc.assert(
      fc.property(bucketsArb, fc.nat(30), (buckets, wanted) => {
        const children = buckets.map((b) => bucketRunCurve([b], 3, 99));
        const full = mergeCurves(children, 3, 99);
        const target = full.lo + (wanted % (full.hi - full.lo + 1));
        const aimed = mergeCurves(children, 3, 99, { target });
        expect(aimed.any[target]).toBe(full.any[target]);
        expectValidPick(aimed, buckets, target, aimed.any[target] as number);
        const coarse = mergeCurves(children, 3, 99, { target, coarse: true });
        expect(coarse.any[target]).toBeGreaterThanOrEqual(full.any[target] as number);
        expectValidPick(coarse, buckets, target, coarse.any[target] as number);
        expect(mergeWork(children, 99, target)).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('coarse can miss the optimum when two children sit in between (why it runs only beyond the budget)', () => {
    // Two root ports of [4 devices on a switch, 1 alone]: 8 devices cost least as the two switches (76), not
    // as one full port and 3 of the other switch (77).
    const port = (p: string): CostCurve =>
      mergeCurves(
        [
          bucketRunCurve([{ pairCost: 1, must: [], rest: [`${p}a`, `${p}b`, `${p}c`, `${p}d`] }], 2, 9),
          bucketRunCurve([{ pairCost: 2, must: [], rest: [`${p}x`] }], 2, 9),
        ],
        2,
        9,
      );
    const ports = [port('p'), port('q')];
    const exact = mergeCurves(ports, 4, 9, { target: 8 });
    const coarse = mergeCurves(ports, 4, 9, { target: 8, coarse: true });
    expect(exact.pick(8, true).sort()).toEqual(['pa', 'pb', 'pc', 'pd', 'qa', 'qb', 'qc', 'qd']);
    expect([exact.any[8], coarse.any[8]]).toEqual([76, 77]);
    // Within a budget the merge is exact and charged; beyond what is left, coarse and free.
    const work = mergeWork(ports, 9, 8);
    const budget = { left: work };
    expect(mergeWithin(budget, ports, 4, 9, 8).any[8]).toBe(76);
    expect(budget.left).toBe(0);
    expect(mergeWithin(budget, ports, 4, 9, 8).any[8]).toBe(77);
    expect(budget.left).toBe(0);
  });
});
