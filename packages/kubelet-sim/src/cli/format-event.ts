import type { Device } from '@kdp/api';
import type { SchedulerEvent } from '../scheduler/scheduler';
import type { SimEvent } from '../sim-events';

/** Turns simulator events into readable table lines, remembering each resource's last list to show changes. */
export interface EventFormatter {
  /** The header line of the table. */
  readonly header: string;
  /** Lines for one event (none for events not worth a line). */
  format(event: SimEvent): string[];
}

const time = (at: number): string => new Date(at).toISOString().slice(11, 23);
const row = (at: number, type: string, resource: string, details: string): string =>
  `${time(at)}  ${type.padEnd(17)} ${resource.padEnd(24)} ${details}`;
const indent = ' '.repeat(12 + 2 + 18 + 25);
const numa = (d: Device): string => {
  const nodes = d.topology?.nodes.map((n) => n.ID) ?? [];
  return nodes.length === 0 ? '-' : nodes.join(',');
};
const who = (e: { namespace: string; pod: string; container: string }): string =>
  `${e.namespace}/${e.pod}/${e.container}`;

/** A line of `serve --dra`'s table for a scheduling decision (the same columns as the kubelet's events). */
export function formatSchedulerEvent(event: SchedulerEvent, at: number): string {
  switch (event.type) {
    case 'scheduled':
      return row(at, 'scheduled', event.pod, `node=${event.node} claims=${event.claims.join(',') || '-'}`);
    case 'unschedulable':
      return row(at, 'unschedulable', event.pod, `${event.reason}: ${event.message}`);
    case 'error':
      return row(at, 'scheduler-error', '-', event.message);
  }
}

/** Creates a formatter for `kubelet-sim serve`'s table output. */
export function createEventFormatter(): EventFormatter {
  const last = new Map<string, Map<string, string>>();
  const devices = (event: Extract<SimEvent, { type: 'devices' }>): string[] => {
    const before = last.get(event.resource);
    const now = new Map(event.devices.map((d) => [d.ID, d.health]));
    last.set(event.resource, now);
    const summary = `${now.size} devices: ${event.healthy.length} healthy, ${event.unhealthy.length} unhealthy`;
    const sameIds =
      before !== undefined && before.size === now.size && [...now.keys()].every((id) => before.has(id));
    if (!sameIds) {
      return [
        row(event.at, event.type, event.resource, summary),
        ...event.devices.map(
          (d) => `${indent}${d.ID.padEnd(20)} ${JSON.stringify(d.health).padEnd(12)} numa=${numa(d)}`,
        ),
      ];
    }
    const changes = [...now].filter(([id, health]) => before.get(id) !== health);
    if (changes.length === 0) return [row(event.at, event.type, event.resource, `${summary} (no change)`)];
    return [
      row(event.at, 'health-changed', event.resource, summary),
      ...changes.map(([id, health]) => `${indent}${id}: ${before.get(id) ?? '?'} -> ${health}`),
    ];
  };
  return {
    header: `${'TIME'.padEnd(12)}  ${'EVENT'.padEnd(17)} ${'RESOURCE'.padEnd(24)} DETAILS`,
    format(event) {
      switch (event.type) {
        case 'registered':
          return [
            row(
              event.at,
              event.type,
              event.resource,
              `endpoint=${event.endpoint} version=${event.version} via=${event.via} ` +
                `preStartRequired=${event.options.preStartRequired} ` +
                `getPreferredAllocationAvailable=${event.options.getPreferredAllocationAvailable}`,
            ),
          ];
        case 'register-rejected':
          return [row(event.at, event.type, event.resource, event.message)];
        case 'devices':
          return devices(event);
        case 'stream-ended':
          last.delete(event.resource);
          return [
            row(event.at, event.type, event.resource, `${event.reason}; every device is now unhealthy`),
          ];
        case 'resource-removed':
          return [row(event.at, event.type, event.resource, 'grace period over')];
        case 'allocated':
          return [row(event.at, event.type, event.resource, `${who(event)}: ${event.deviceIds.join(',')}`)];
        case 'admission-failed':
          return [row(event.at, event.type, event.resource, `${who(event)}: ${event.message}`)];
        case 'pre-started':
          return [row(event.at, event.type, event.resource, who(event))];
        case 'restarted':
          return [row(event.at, event.type, '-', 'kubelet.sock served again')];
        case 'checkpoint-written':
          return [];
        case 'dra-registered':
          return [
            row(
              event.at,
              event.type,
              event.driver,
              `endpoint=${event.endpoint} service=${event.service} health=${event.healthService ?? '-'}`,
            ),
          ];
        case 'dra-connection':
          return [
            row(
              event.at,
              event.type,
              event.driver,
              `${event.endpoint} ${event.connected ? 'connected' : 'disconnected'}`,
            ),
          ];
        case 'dra-prepared':
        case 'dra-unprepared':
          return [
            row(
              event.at,
              event.type,
              `${event.namespace}/${event.pod}`,
              event.claims.map((c) => c.name).join(','),
            ),
          ];
        case 'dra-prepare-failed':
          return [row(event.at, event.type, `${event.namespace}/${event.pod}`, event.message)];
        case 'dra-health':
          return [
            row(
              event.at,
              event.type,
              event.driver,
              `${event.reason}: ${event.devices.map((d) => `${d.poolName}/${d.deviceName}=${d.health}`).join(' ')}`,
            ),
          ];
        case 'slices-deleted':
          return [
            row(
              event.at,
              event.type,
              event.driver ?? '*',
              `${event.count} slice(s) of ${event.node} (${event.reason})`,
            ),
          ];
      }
    },
  };
}
