import type { ExcludedDevice, PluginDevice } from '@kdp/core';
import type { Sysfs } from '@kdp/topology';
import type { DevicePayload } from './device-payload';
import { expandDevGlob } from './expand-dev-glob';
import { matchRules } from './match-usb-device';
import type { UsbStringCache } from './read-usb-device';
import type { PathGroupSpec, ResourceSpec, UsbGroupSpec } from './resource-spec';
import { scanUsbDevices, type UsbScan } from './scan-usb-devices';
import { portId, sanitizeIdPart, shareIds, stableUsbId } from './stable-usb-id';
import type { UsbDevice } from './usb-device';

/** The devices of one resource in one scan. */
export interface ResourceInventory {
  readonly name: string;
  readonly devices: readonly PluginDevice<DevicePayload>[];
}

/** Everything one scan found: per resource devices, what was left out and why, warnings. */
export interface Inventory {
  readonly scan: UsbScan;
  readonly resources: readonly ResourceInventory[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

/** Options of {@link computeInventory}. */
export interface InventoryOptions {
  readonly sysfs: Sysfs;
  /** Where `/dev` is read (path globs). */
  readonly devRoot: string;
  readonly specs: readonly ResourceSpec[];
  /** Fills descriptor strings sysfs lacks (the `usb` package); sysfs values always win. */
  readonly enrich?: (devices: readonly UsbDevice[]) => Promise<readonly UsbDevice[]>;
  /** Descriptor strings per plug, kept between scans by a long-running scanner. */
  readonly stringCache?: UsbStringCache;
}

/**
 * Scans sysfs and /dev once and assigns devices to resources. A USB device goes to the first resource (in
 * configuration order) with a matching rule; every device seen and not advertised is in `excluded` with why.
 */
export async function computeInventory(options: InventoryOptions): Promise<Inventory> {
  const scan = await scanUsbDevices(options.sysfs, options.stringCache);
  const devices = options.enrich ? await options.enrich(scan.devices) : scan.devices;
  const warnings: string[] = [];
  const claimed = new Map<string, string>();
  const reasons = new Map<string, string[]>();
  const resources: ResourceInventory[] = [];
  for (const spec of options.specs) {
    const list: PluginDevice<DevicePayload>[] = [];
    for (const group of spec.groups) {
      if (group.kind === 'usb')
        list.push(...usbGroupDevices(spec.name, group, devices, claimed, reasons, warnings));
      else list.push(...(await pathGroupDevices(options.devRoot, group)));
    }
    const seen = new Set<string>();
    resources.push({
      name: spec.name,
      devices: list.filter((d) => {
        if (seen.has(d.id)) {
          warnings.push(`${spec.name}: device ID ${d.id} comes from two groups; the first one is kept`);
          return false;
        }
        seen.add(d.id);
        return true;
      }),
    });
  }
  const excluded: ExcludedDevice[] = scan.skipped.map((s) => ({ path: `/sys/${s.path}`, reason: s.reason }));
  for (const device of devices) {
    if (claimed.has(device.portPath)) continue;
    const why = reasons.get(device.portPath);
    excluded.push({
      path: `/sys/${device.sysPath}`,
      reason:
        why === undefined || why.length === 0
          ? `no resource is configured for USB devices (${describe(device)})`
          : `${describe(device)}: ${why.join('; ')}`,
    });
  }
  return { scan: { ...scan, devices }, resources, excluded, warnings };
}

function describe(device: UsbDevice): string {
  return `${device.vendorId}:${device.productId}${device.serial !== undefined ? ` serial ${device.serial}` : ''}`;
}

function usbGroupDevices(
  resource: string,
  group: UsbGroupSpec,
  devices: readonly UsbDevice[],
  claimed: Map<string, string>,
  reasons: Map<string, string[]>,
  warnings: string[],
): PluginDevice<DevicePayload>[] {
  const matched: UsbDevice[] = [];
  for (const device of devices) {
    const why = matchRules(group.rules, device);
    if (why !== undefined) {
      const list = reasons.get(device.portPath) ?? [];
      list.push(`${resource}: ${why}`);
      reasons.set(device.portPath, list);
      continue;
    }
    const owner = claimed.get(device.portPath);
    if (owner !== undefined) {
      if (owner !== resource) {
        warnings.push(`${device.portPath} matches ${resource} too but is already advertised as ${owner}`);
      }
      continue;
    }
    claimed.set(device.portPath, resource);
    matched.push(device);
  }
  // Serials shared by several devices (cheap adapters often have one) would collide: those fall back to ports.
  const bySerial = new Map<string, number>();
  for (const d of matched) {
    const id = stableUsbId(d);
    bySerial.set(id, (bySerial.get(id) ?? 0) + 1);
  }
  const out: PluginDevice<DevicePayload>[] = [];
  for (const device of matched) {
    let base = stableUsbId(device);
    if ((bySerial.get(base) ?? 0) > 1) {
      warnings.push(
        `${resource}: serial ${JSON.stringify(device.serial)} is shared by several devices; ${device.portPath} is identified by its port instead`,
      );
      base = portId(device);
    }
    const payload: DevicePayload = {
      kind: 'usb',
      baseId: base,
      device,
      permissions: group.permissions,
      nodes: group.nodes,
    };
    for (const id of shareIds(base, group.count)) out.push({ id, health: 'Healthy', payload });
  }
  return out;
}

async function pathGroupDevices(
  devRoot: string,
  group: PathGroupSpec,
): Promise<PluginDevice<DevicePayload>[]> {
  const matches = await Promise.all(group.paths.map((p) => expandDevGlob(devRoot, p.path)));
  // generic-device-plugin's zip: each path's matches repeated `limit` times; the group yields as many devices as
  // the longest natural match list, capped by the shortest reusable list.
  const reusable = matches.map((m, i) => Array.from({ length: group.paths[i]?.limit ?? 1 }, () => m).flat());
  const natural = Math.max(0, ...matches.map((m) => m.length));
  const length = Math.min(natural, ...reusable.map((r) => r.length));
  const out: PluginDevice<DevicePayload>[] = [];
  for (let i = 0; i < length; i++) {
    const hostPaths = reusable.map((r) => r[i] ?? '');
    const base = sanitizeIdPart(hostPaths.map((p) => p.replace(/^\/dev\//, '')).join('+'));
    const nodes = [];
    const mounts = [];
    for (const [k, spec] of group.paths.entries()) {
      const hostPath = hostPaths[k] ?? '';
      const containerPath = spec.mountPath ?? hostPath;
      if (spec.type === 'Mount') mounts.push({ hostPath, containerPath, readOnly: spec.readOnly });
      else nodes.push({ hostPath, containerPath, permissions: spec.permissions });
    }
    const payload: DevicePayload = { kind: 'paths', baseId: base, devices: nodes, mounts };
    // Reused matches (limit > 1) would repeat an ID: number them.
    const unique = reusable.some((r, k) => r.length > (matches[k]?.length ?? 0)) ? `${base}.${i}` : base;
    for (const id of shareIds(unique, group.count)) out.push({ id, health: 'Healthy', payload });
  }
  return out;
}
