import type { PluginDevice } from './plugin-device';
import { createAllocateContext } from './allocate-context';

describe('createAllocateContext', () => {
  const devices: PluginDevice<string>[] = [{ id: 'a', health: 'Healthy', payload: '/dev/a' }];

  it('reads the cancellation only when the hook reads signal, and looks like a plain object', () => {
    let reads = 0;
    const signal = new AbortController().signal;
    const context = createAllocateContext('example.com/dev', devices, 2, {
      get signal() {
        reads += 1;
        return signal;
      },
    });
    expect(Object.keys(context)).toEqual(['resource', 'devices', 'containerIndex', 'signal']);
    expect(reads).toBe(0);
    expect(context.signal).toBe(signal);
    expect({ ...context }).toEqual({ resource: 'example.com/dev', devices, containerIndex: 2, signal });
    expect(reads).toBe(2);
  });

  it('shares one getter between contexts (no map of its own per call)', () => {
    const cancellation = { signal: new AbortController().signal };
    const [one, two] = [0, 1].map((i) => createAllocateContext('example.com/dev', devices, i, cancellation));
    expect(Object.getOwnPropertyDescriptor(one, 'signal')?.get).toBe(
      Object.getOwnPropertyDescriptor(two, 'signal')?.get,
    );
  });
});
