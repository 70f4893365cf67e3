import { type Device, Healthy } from '@kdp/api';
import { writeKubeletCheckpoint } from './kubelet-checkpoint';
import type { Connection, KubeletState, ResourceRecord } from './kubelet-state';

/** Closes a connection and its ListAndWatch stream, once. */
export function detachConnection(connection: Connection | undefined): void {
  if (connection === undefined || connection.detached) return;
  connection.detached = true;
  connection.cancelStream?.();
  connection.endpoint.close();
}

/** P-19: a stopped endpoint's resource is dropped once the grace period is over. */
export function markResourceStopped(state: KubeletState, record: ResourceRecord): void {
  const { clock } = state;
  record.stoppedAt = clock.now();
  if (record.graceTimer !== undefined) clock.clearTimeout(record.graceTimer);
  record.graceTimer = clock.setTimeout(() => {
    if (state.resources.get(record.name) !== record || record.connection !== undefined) return;
    state.resources.delete(record.name);
    state.emit('resource-removed', { resource: record.name });
    writeKubeletCheckpoint(state);
  }, state.gracePeriodMs);
}

/** P-19: the stream ended; every device becomes unhealthy, capacity stays, the stop time is recorded. */
export function endResourceStream(
  state: KubeletState,
  record: ResourceRecord,
  connection: Connection,
  reason: string,
): void {
  if (connection.detached || record.connection !== connection) return;
  detachConnection(connection);
  delete record.connection;
  record.unhealthy = [...new Set([...record.healthy, ...record.unhealthy])];
  record.healthy = [];
  markResourceStopped(state, record);
  state.emit('stream-ended', { resource: record.name, reason: connection.dropReason ?? reason });
  writeKubeletCheckpoint(state);
}

/** P-14, P-15: every ListAndWatch message is a full snapshot; only the exact string "Healthy" is healthy. */
export function applyResourceDevices(
  state: KubeletState,
  record: ResourceRecord,
  connection: Connection,
  devices: Device[],
): void {
  if (connection.detached || record.connection !== connection) return;
  const byId = new Map<string, Device>();
  for (const device of devices) {
    byId.delete(device.ID);
    byId.set(device.ID, device);
  }
  record.devices = [...byId.values()];
  record.healthy = record.devices.filter((d) => d.health === Healthy).map((d) => d.ID);
  record.unhealthy = record.devices.filter((d) => d.health !== Healthy).map((d) => d.ID);
  state.emit('devices', {
    resource: record.name,
    devices,
    healthy: [...record.healthy],
    unhealthy: [...record.unhealthy],
  });
  writeKubeletCheckpoint(state);
}
