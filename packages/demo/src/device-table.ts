import type { ResourceState } from '@kdp/kubelet-sim';
import { formatTable } from './format-table';
import type { ExpectedResource } from './sample-node/sample-configs';

/** Longer resource names (the FPGA's af- names) are cut in the table; the other output shows them whole. */
const MAX_RESOURCE = 36;

/** What the table shows besides kubelet-sim's state: which pod holds a device. */
export interface DeviceTableInput {
  /** The resources in table order, with the plugin serving each. */
  readonly expected: readonly ExpectedResource[];
  /** kubelet-sim's view of one resource, or undefined before it registered. */
  readonly resource: (name: string) => ResourceState | undefined;
  /** The pod holding a device, by resource and device ID. */
  readonly holder?: (resource: string, deviceId: string) => string | undefined;
}

/**
 * The device table as kubelet-sim sees the node: one row per device with its plugin, resource, health, NUMA
 * nodes and holding pod, under a summary line (resources registered, devices, healthy).
 */
export function renderDeviceTable(input: DeviceTableInput): string[] {
  const short = (name: string): string =>
    name.length > MAX_RESOURCE ? `${name.slice(0, MAX_RESOURCE - 1)}…` : name;
  const rows: string[][] = [['PLUGIN', 'RESOURCE', 'DEVICE', 'HEALTH', 'NUMA', 'POD']];
  let registered = 0;
  let devices = 0;
  let healthy = 0;
  for (const { plugin, resource } of input.expected) {
    const state = input.resource(resource);
    if (state?.registered === true) registered++;
    if (state === undefined || state.devices.length === 0) {
      rows.push([
        plugin,
        short(resource),
        '-',
        state === undefined ? 'not registered' : 'no devices',
        '-',
        '-',
      ]);
      continue;
    }
    const list = [...state.devices].sort((a, b) => a.ID.localeCompare(b.ID));
    for (const device of list) {
      devices++;
      if (device.health === 'Healthy') healthy++;
      const numa = device.topology?.nodes.map((n) => n.ID).join(',') || '-';
      const health = state.registered ? device.health : `${device.health} (stream ended)`;
      rows.push([
        plugin,
        short(resource),
        device.ID,
        health,
        numa,
        input.holder?.(resource, device.ID) ?? '-',
      ]);
    }
  }
  const summary =
    `kubelet-sim: ${registered}/${input.expected.length} resources registered, ` +
    `${devices} devices, ${healthy} healthy, ${devices - healthy} unhealthy`;
  return [summary, ...formatTable(rows)];
}
