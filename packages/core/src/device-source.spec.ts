import { createPushSource } from './device-source';

describe('createPushSource', () => {
  it('hands the latest list to late subscribers and every set to current ones', () => {
    const source = createPushSource([{ id: 'a', health: 'Healthy' }]);
    const first: string[][] = [];
    const stop = source.subscribe((list) => first.push(list.map((d) => d.id)));
    source.set([{ id: 'b', health: 'Healthy' }]);
    const second: string[][] = [];
    source.subscribe((list) => second.push(list.map((d) => d.id)));
    stop();
    source.set([]);
    expect(first).toEqual([['a'], ['b']]);
    expect(second).toEqual([['b'], []]);
    expect(source.current()).toEqual([]);
  });

  it('says nothing to a subscriber until a list exists', () => {
    const source = createPushSource();
    const listener = jest.fn();
    source.subscribe(listener);
    expect(listener).not.toHaveBeenCalled();
  });
});
