/** A seeded pseudo-random source: the same seed gives the same soak schedule. */
export interface SoakRandom {
  /** The seed it was created with. */
  readonly seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** A shuffled copy of a list. */
  shuffle<T>(list: readonly T[]): T[];
}

/** Creates a seeded source (mulberry32: 32-bit state, fast, plenty for scheduling faults). */
export function createSoakRandom(seed: number): SoakRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    seed,
    next,
    int,
    pick: (list) => {
      if (list.length === 0) throw new RangeError('pick: empty list');
      return list[int(list.length)] as (typeof list)[number];
    },
    shuffle: (list) => {
      const copy = [...list];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [copy[i], copy[j]] = [copy[j] as (typeof copy)[number], copy[i] as (typeof copy)[number]];
      }
      return copy;
    },
  };
}
