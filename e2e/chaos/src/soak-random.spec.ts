import { createSoakRandom } from './soak-random';

describe('createSoakRandom', () => {
  const draw = (seed: number): number[] => {
    const random = createSoakRandom(seed);
    return Array.from({ length: 20 }, () => random.int(1000));
  };

  it('repeats its sequence for a seed, and another seed gives another one', () => {
    expect(draw(42)).toEqual(draw(42));
    expect(draw(43)).not.toEqual(draw(42));
  });

  it('draws integers in range, each value of a small range', () => {
    const random = createSoakRandom(1);
    const seen = new Set(Array.from({ length: 200 }, () => random.int(7)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('shuffles into a permutation and picks from the list', () => {
    const random = createSoakRandom(5);
    const list = ['a', 'b', 'c', 'd', 'e'];
    expect(random.shuffle(list).sort()).toEqual(list);
    expect(list).toContain(random.pick(list));
    expect(() => random.pick([])).toThrow('empty list');
  });
});
