import type { PluginDevice } from '@kdp/core';
import type { DevicePayload } from './device-payload';
import { createHealthMemory } from './health-memory';
import { defined } from './testing/defined';

const dev = (id: string, baseId = id): PluginDevice<DevicePayload> => ({
  id,
  health: 'Healthy',
  payload: { kind: 'paths', baseId, devices: [], mounts: [] },
});

describe('createHealthMemory', () => {
  it('keeps every share of an allocated device Unhealthy while it is gone, Healthy when it returns', () => {
    const memory = createHealthMemory();
    const shares = [dev('S#0', 'S'), dev('S#1', 'S'), dev('T')];
    expect(memory.apply(shares)).toEqual(shares);
    memory.allocated([defined(shares[0])]);
    expect(memory.apply([dev('T')])).toEqual([
      dev('T'),
      { ...shares[0], health: 'Unhealthy' },
      { ...shares[1], health: 'Unhealthy' },
    ]);
    expect(memory.apply(shares)).toEqual(shares);
  });

  it('lets a device that was never allocated vanish', () => {
    const memory = createHealthMemory();
    memory.apply([dev('A'), dev('B')]);
    expect(memory.apply([dev('A')])).toEqual([dev('A')]);
    expect(memory.apply([dev('A'), dev('B')])).toEqual([dev('A'), dev('B')]);
  });
});
