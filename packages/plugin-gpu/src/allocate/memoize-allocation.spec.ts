import type { ContainerAllocation, PluginDevice } from '@kdp/core';
import { memoizeAllocation } from './memoize-allocation';

const device = (id: string): PluginDevice<string> => ({ id, health: 'Healthy', payload: id });

describe('memoizeAllocation', () => {
  const counted = () => {
    const calls: string[][] = [];
    const allocate = memoizeAllocation<string>((devices): ContainerAllocation => {
      calls.push(devices.map((d) => d.id));
      return { envs: { IDS: devices.map((d) => d.id).join(',') } };
    });
    return { calls, allocate };
  };

  it('works out each combination of the same device objects once, in request order', () => {
    const { calls, allocate } = counted();
    const [a, b] = [device('a'), device('b')];
    const first = allocate([a, b]);
    expect(allocate([a, b])).toBe(first);
    expect(allocate([b, a])).toEqual({ envs: { IDS: 'b,a' } });
    expect(allocate([a])).toEqual({ envs: { IDS: 'a' } });
    expect(allocate([a])).toBe(allocate([a]));
    expect(calls).toEqual([['a', 'b'], ['b', 'a'], ['a']]);
  });

  it('works it out again for new device objects of the same IDs (a new scan)', () => {
    const { calls, allocate } = counted();
    allocate([device('a')]);
    allocate([device('a')]);
    expect(calls).toEqual([['a'], ['a']]);
  });

  it('keeps no throw', () => {
    let fail = true;
    const allocate = memoizeAllocation<string>(() => {
      if (fail) throw new Error('refused');
      return {};
    });
    const a = device('a');
    expect(() => allocate([a])).toThrow('refused');
    fail = false;
    expect(allocate([a])).toEqual({});
  });
});
