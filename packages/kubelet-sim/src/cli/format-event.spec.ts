import { Healthy } from '@kdp/api';
import { createEventFormatter } from './format-event';

describe('createEventFormatter', () => {
  it('lists devices when the set changes and only the changes when health flips', () => {
    const f = createEventFormatter();
    const at = Date.UTC(2026, 0, 1, 12, 0, 0, 5);
    const dev = (ID: string, health: string) => ({ ID, health, topology: { nodes: [{ ID: 0 }] } });
    const first = f.format({
      type: 'devices',
      at,
      resource: 'a.com/b',
      devices: [dev('x', Healthy), dev('y', Healthy)],
      healthy: ['x', 'y'],
      unhealthy: [],
    });
    expect(first[0]).toBe(
      '12:00:00.005  devices           a.com/b                  2 devices: 2 healthy, 0 unhealthy',
    );
    expect(first[1]?.trim()).toBe('x                    "Healthy"    numa=0');
    const flip = f.format({
      type: 'devices',
      at,
      resource: 'a.com/b',
      devices: [dev('x', Healthy), dev('y', 'Unhealthy')],
      healthy: ['x'],
      unhealthy: ['y'],
    });
    expect(flip).toHaveLength(2);
    expect(flip[0]).toContain('health-changed');
    expect(flip[1]?.trim()).toBe('y: Healthy -> Unhealthy');
    expect(f.format({ type: 'checkpoint-written', at, path: '/x' })).toEqual([]);
  });
});
