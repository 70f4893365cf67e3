import type { PluginDevice } from '../plugin-device';
import { createDeviceMemory, heldExclusion, VANISHED } from './device-memory';

const device = (
  id: string,
  health: 'Healthy' | 'Unhealthy' = 'Healthy',
  problem?: string,
): PluginDevice<string> => ({
  id,
  health,
  payload: `payload-${id}`,
  ...(problem !== undefined ? { problem } : {}),
});
const ids = (list: readonly PluginDevice<unknown>[]): string[] => list.map((d) => `${d.id}:${d.health}`);

describe('createDeviceMemory', () => {
  it('without a grace, advertises exactly the scan', () => {
    const memory = createDeviceMemory({ graceMs: 0, keep: 'all', holdUntilHealthy: false });
    expect(ids(memory.advertise('r', [device('a'), device('b')], 0).devices)).toEqual([
      'a:Healthy',
      'b:Healthy',
    ]);
    expect(ids(memory.advertise('r', [device('a')], 1).devices)).toEqual(['a:Healthy']);
    expect(memory.remembers('r')).toBe(false);
  });

  it('keeps a vanished device Unhealthy, with its last payload, until the grace ends or it returns', () => {
    const memory = createDeviceMemory({ graceMs: 1000, keep: 'all', holdUntilHealthy: false });
    memory.advertise('r', [device('a'), device('b')], 0);
    const kept = memory.advertise('r', [device('a')], 100).devices;
    expect(ids(kept)).toEqual(['a:Healthy', 'b:Unhealthy']);
    expect(kept[1]).toMatchObject({ payload: 'payload-b', problem: VANISHED });
    expect(memory.remembers('r')).toBe(true);
    expect(ids(memory.advertise('r', [device('a')], 1099).devices)).toEqual(['a:Healthy', 'b:Unhealthy']);
    expect(ids(memory.advertise('r', [device('a')], 1100).devices)).toEqual(['a:Healthy']);
    memory.advertise('r', [device('a'), device('b')], 1200);
    expect(ids(memory.advertise('r', [], 1300).devices)).toEqual(['a:Unhealthy', 'b:Unhealthy']);
    expect(ids(memory.advertise('r', [device('b')], 1400).devices)).toEqual(['b:Healthy', 'a:Unhealthy']);
  });

  it('with keep allocated, keeps only vanished devices that were handed to a container', () => {
    const memory = createDeviceMemory({
      graceMs: Number.POSITIVE_INFINITY,
      keep: 'allocated',
      holdUntilHealthy: false,
    });
    memory.advertise('r', [device('a'), device('b')], 0);
    memory.allocated('r', ['b']);
    expect(ids(memory.advertise('r', [], 1e12).devices)).toEqual(['b:Unhealthy']);
    expect(ids(memory.advertise('r', [device('b')], 2e12).devices)).toEqual(['b:Healthy']);
  });

  it('holds back a device until it was healthy once', () => {
    const memory = createDeviceMemory({ graceMs: 0, keep: 'all', holdUntilHealthy: true });
    const first = memory.advertise('r', [device('a'), device('b', 'Unhealthy', 'no node')], 0);
    expect(ids(first.devices)).toEqual(['a:Healthy']);
    expect(first.held.map((d) => d.id)).toEqual(['b']);
    expect(heldExclusion({ ...device('b', 'Unhealthy', 'no node'), pciAddress: '0000:3b:00.0' })).toEqual({
      path: '/sys/bus/pci/devices/0000:3b:00.0',
      reason: 'b: no node (advertised once healthy)',
    });
    memory.advertise('r', [device('a'), device('b')], 1);
    const later = memory.advertise(
      'r',
      [device('a', 'Unhealthy', 'gone'), device('b', 'Unhealthy', 'gone')],
      2,
    );
    expect(ids(later.devices)).toEqual(['a:Unhealthy', 'b:Unhealthy']);
    expect(later.held).toEqual([]);
  });

  it('forgets vanished devices after a new configuration, keeping what was healthy', () => {
    const memory = createDeviceMemory({
      graceMs: Number.POSITIVE_INFINITY,
      keep: 'all',
      holdUntilHealthy: true,
    });
    memory.advertise('r', [device('a'), device('b')], 0);
    memory.forgetVanished();
    expect(ids(memory.advertise('r', [device('c'), device('a', 'Unhealthy', 'x')], 1).devices)).toEqual([
      'c:Healthy',
      'a:Unhealthy',
    ]);
  });

  it('forgets at once a vanished device the scan says is retired; keeps the others Unhealthy', () => {
    const memory = createDeviceMemory({
      graceMs: Number.POSITIVE_INFINITY,
      keep: 'all',
      holdUntilHealthy: false,
    });
    memory.advertise('r', [device('a'), device('b'), device('c')], 0);
    const asked: string[] = [];
    const retired = (old: PluginDevice<unknown>): boolean => {
      asked.push(`${old.id}:${String(old.payload)}`);
      return old.id === 'b';
    };
    expect(ids(memory.advertise('r', [device('a')], 1, retired).devices)).toEqual([
      'a:Healthy',
      'c:Unhealthy',
    ]);
    // Asked about the vanished devices only, with their last payload.
    expect(asked).toEqual(['b:payload-b', 'c:payload-c']);
    // Forgotten for good: no longer remembered on the next scan either, even without the predicate.
    expect(ids(memory.advertise('r', [device('a')], 2).devices)).toEqual(['a:Healthy', 'c:Unhealthy']);
    expect(ids(memory.advertise('r', [device('a')], 3, () => true).devices)).toEqual(['a:Healthy']);
    expect(memory.remembers('r')).toBe(false);
  });

  it('keeps resources apart and forgets one on request', () => {
    const memory = createDeviceMemory({ graceMs: 1000, keep: 'all', holdUntilHealthy: false });
    memory.advertise('r', [device('a')], 0);
    memory.advertise('s', [device('a')], 0);
    memory.forget('r');
    expect(ids(memory.advertise('r', [], 1).devices)).toEqual([]);
    expect(ids(memory.advertise('s', [], 1).devices)).toEqual(['a:Unhealthy']);
  });
});
