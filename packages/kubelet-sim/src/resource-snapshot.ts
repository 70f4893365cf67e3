import type { EventEmitter } from 'node:events';
import type { ResourceState } from './kubelet-sim-types';
import type { ResourceRecord } from './kubelet-state';

/** A copy of a resource as `KubeletSim.resource` shows it. */
export const resourceSnapshot = (record: ResourceRecord): ResourceState => ({
  name: record.name,
  endpoint: record.endpointName,
  registered: record.connection !== undefined,
  apiVersion: record.apiVersion,
  options: { ...record.options },
  devices: record.devices.map((d) => ({ ...d })),
  healthy: [...record.healthy],
  unhealthy: [...record.unhealthy],
  capacity: record.healthy.length + record.unhealthy.length,
  allocatable: record.healthy.length,
  ...(record.stoppedAt === undefined ? {} : { stoppedAt: record.stoppedAt }),
});

/**
 * Resolves with the resource's state once it is registered and `predicate` holds (checked now and after every
 * event); rejects after `timeoutMs` with the last state seen.
 */
export function untilResourceState(options: {
  readonly events: EventEmitter;
  readonly resource: string;
  readonly current: () => ResourceState | undefined;
  readonly predicate: (state: ResourceState) => boolean;
  readonly timeoutMs: number;
}): Promise<ResourceState> {
  const { events, resource, current, predicate, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const state = current();
      if (state === undefined || !state.registered || !predicate(state)) return false;
      events.off('event', check);
      clearTimeout(timer);
      resolve(state);
      return true;
    };
    const timer = setTimeout(() => {
      events.off('event', check);
      const state = current();
      reject(
        new Error(
          `kubelet-sim: ${resource} did not reach the expected state within ${timeoutMs} ms; last: ${JSON.stringify(state ?? null)}`,
        ),
      );
    }, timeoutMs);
    events.on('event', check);
    check();
  });
}
