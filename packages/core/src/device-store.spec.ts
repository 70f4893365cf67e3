import { createDeviceStore } from './device-store';
import type { PluginDevice } from './plugin-device';

describe('createDeviceStore', () => {
  it('reports the first list as a change, even when empty', () => {
    const store = createDeviceStore('example.com/dev');
    expect(store.hasList()).toBe(false);
    expect(store.set([]).changed).toBe(true);
    expect(store.hasList()).toBe(true);
  });

  it('does not resend a list that differs only in order, and notifies subscribers of real changes', () => {
    const store = createDeviceStore('example.com/dev');
    const seen: string[][] = [];
    store.subscribe((snapshot) => seen.push(snapshot.map((d) => `${d.ID}:${d.health}`)));
    store.set([
      { id: 'b', health: 'Healthy', numaNodes: [1, 0] },
      { id: 'a', health: 'Healthy' },
    ]);
    expect(
      store.set([
        { id: 'a', health: 'Healthy' },
        { id: 'b', health: 'Healthy', numaNodes: [0, 1] },
      ]).changed,
    ).toBe(false);
    expect(
      store.set([
        { id: 'a', health: 'Unhealthy' },
        { id: 'b', health: 'Healthy', numaNodes: [0, 1] },
      ]).changed,
    ).toBe(true);
    expect(seen).toEqual([
      ['a:Healthy', 'b:Healthy'],
      ['a:Unhealthy', 'b:Healthy'],
    ]);
  });

  it('keeps payload updates without resending', () => {
    const store = createDeviceStore<number>('example.com/dev');
    store.set([{ id: 'a', health: 'Healthy', payload: 1 }]);
    expect(store.set([{ id: 'a', health: 'Healthy', payload: 2 }]).changed).toBe(false);
    expect(store.devices().get('a')?.payload).toBe(2);
  });

  it('drops bad entries with warnings, keeps the last duplicate, and sends exact health strings and topology', () => {
    const store = createDeviceStore('example.com/dev');
    const { warnings } = store.set([
      { id: '', health: 'Healthy' },
      { id: 'x', health: 'healthy' as PluginDevice['health'] },
      { id: 'd', health: 'Unhealthy' },
      { id: 'd', health: 'Healthy', numaNodes: [1] },
      { id: 'l'.repeat(64), health: 'Healthy' },
    ]);
    expect(warnings).toHaveLength(4);
    expect(store.snapshot()).toEqual([
      { ID: 'd', health: 'Healthy', topology: { nodes: [{ ID: 1 }] } },
      { ID: 'l'.repeat(64), health: 'Healthy', topology: undefined },
    ]);
  });
});
