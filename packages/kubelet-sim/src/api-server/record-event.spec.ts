import { createFakeClock } from '../testing/fake-clock';
import { createObjectStore } from './object-store';
import { recordEvent } from './record-event';

describe('recordEvent', () => {
  it('creates an Event, then aggregates the same one by count and lastTimestamp', () => {
    const clock = createFakeClock(Date.UTC(2026, 0, 1));
    const store = createObjectStore({ clock });
    const event = {
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns', uid: 'u1' },
      reason: 'FailedScheduling',
      message: 'no fit',
      type: 'Warning' as const,
      source: { component: 'default-scheduler' },
    };
    const first = recordEvent(store, event, { clock });
    expect(first).toMatchObject({
      metadata: { namespace: 'ns', name: `p.${(BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n).toString(16)}` },
      involvedObject: event.involvedObject,
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:00Z',
    });
    clock.advance(5000);
    const again = recordEvent(store, event, { clock });
    expect(again).toMatchObject({
      metadata: { name: first.metadata.name },
      count: 2,
      lastTimestamp: '2026-01-01T00:00:05Z',
    });
    const other = recordEvent(store, { ...event, message: 'still no fit' }, { clock });
    expect(other.metadata.name).not.toBe(first.metadata.name);
    expect(store.list('events', { namespace: 'ns' }).items).toHaveLength(2);
  });

  it('puts events of cluster-scoped objects in default', () => {
    const store = createObjectStore();
    const e = recordEvent(store, {
      involvedObject: { kind: 'Node', name: 'n' },
      reason: 'Ready',
      message: 'ok',
      type: 'Normal',
    });
    expect(e.metadata.namespace).toBe('default');
  });
});
