import { createEventHub } from './event-hub';

describe('createEventHub', () => {
  it('delivers to listeners and iterators, isolates throwing listeners, and ends iterators on close', async () => {
    const errors: unknown[] = [];
    const hub = createEventHub<number>((e) => errors.push(e));
    hub.subscribe(() => {
      throw new Error('bad listener');
    });
    const seen: number[] = [];
    hub.subscribe((n) => seen.push(n));
    const iterator = hub.iterate();
    hub.emit(1);
    hub.emit(2);
    hub.close();
    const iterated: number[] = [];
    for await (const n of iterator) iterated.push(n);
    expect(seen).toEqual([1, 2]);
    expect(iterated).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
  });

  it('ends an iterator when its signal aborts', async () => {
    const hub = createEventHub<number>();
    const controller = new AbortController();
    const iterator = hub.iterate(controller.signal);
    const next = iterator.next();
    controller.abort();
    await expect(next).resolves.toEqual({ done: true, value: undefined });
  });
});
