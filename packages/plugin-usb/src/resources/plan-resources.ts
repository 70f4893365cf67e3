import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import {
  topologyPreferredAllocation,
  type AllocateContext,
  type ContainerAllocation,
  type DeviceMount,
  type DeviceNode,
  type PluginDevice,
} from '@kdp/core';
import type { ExcludedDevice, ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import type { UsbConfig, UsbMatchRule } from '../config';
import type { UsbHostScan } from '../scan/scan-usb-host';
import type { UsbDevice } from '../scan/usb-device';
import { configuredResources, type PathGroupSpec, type UsbGroupSpec } from './configured-resources';
import type { DevicePayload } from './device-payload';
import { matchRules } from './match-rules';
import { portId, sanitizeIdPart, shareIds, stableUsbId } from './stable-usb-id';
import { usbLocality, type UsbLocality } from './usb-locality';

/** Every configured resource with its devices after one scan, what was left out and why, and warnings. */
export interface UsbPlan extends ResourceSet {
  readonly resources: readonly ResourceSpec<DevicePayload>[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

/** The Allocate hook every resource gets. */
export type UsbAllocate = (context: AllocateContext<DevicePayload>) => Promise<ContainerAllocation>;

/** Claims and warnings gathered while USB devices are assigned to resources. */
interface Assignment {
  /** Port path → the resource that advertises it. */
  readonly claimed: Map<string, string>;
  readonly warnings: string[];
}

/**
 * Assigns one scan's devices to the configured resources. A USB device goes to the first resource (in
 * configuration order) with a matching rule; every device seen and not advertised is in `excluded` with why.
 * Every resource answers GetPreferredAllocation: one NUMA node, then one controller, then one hub.
 */
export function planResources(config: UsbConfig, scan: UsbHostScan, allocate: UsbAllocate): UsbPlan {
  const assignment: Assignment = { claimed: new Map(), warnings: [...scan.warnings] };
  const preferredAllocation = topologyPreferredAllocation<DevicePayload>();
  // The shares of one physical device (`<id>#0`, `<id>#1`) are one CDI device, named by the base ID (whose
  // characters CDI accepts).
  const cdi = { deviceName: (device: PluginDevice<DevicePayload>) => device.payload?.baseId ?? device.id };
  const configured = configuredResources(config);
  const resources = configured.map((spec): ResourceSpec<DevicePayload> => {
    const seen = new Set<string>();
    const devices = spec.groups
      .flatMap((group) =>
        group.kind === 'usb'
          ? usbGroupDevices(spec.name, group, scan.devices, assignment)
          : pathGroupDevices(group, scan.globs),
      )
      .filter((d) => {
        if (seen.has(d.id)) {
          assignment.warnings.push(
            `${spec.name}: device ID ${d.id} comes from two groups; the first one is kept`,
          );
          return false;
        }
        seen.add(d.id);
        return true;
      });
    return { name: spec.name, devices, allocate, preferredAllocation, cdi };
  });
  const excluded: ExcludedDevice[] = scan.skipped.map((s) => ({ path: `/sys/${s.path}`, reason: s.reason }));
  // Why each device no USB group took (built for these alone: a scan of hundreds of devices formats few).
  const groups = configured.flatMap((spec) =>
    spec.groups.flatMap((group) => (group.kind === 'usb' ? [[spec.name, group.rules] as const] : [])),
  );
  for (const device of scan.devices) {
    if (assignment.claimed.has(device.portPath)) continue;
    const why = groups.flatMap(([resource, rules]) => {
      const mismatch = matchOf(rules, device);
      return mismatch === undefined ? [] : [`${resource}: ${mismatch}`];
    });
    excluded.push({
      path: `/sys/${device.sysPath}`,
      reason:
        why.length === 0
          ? `no resource is configured for USB devices (${describe(device)})`
          : `${describe(device)}: ${why.join('; ')}`,
    });
  }
  return { resources, excluded, warnings: assignment.warnings };
}

function describe(device: UsbDevice): string {
  return `${device.vendorId}:${device.productId}${device.serial !== undefined ? ` serial ${device.serial}` : ''}`;
}

/** The facts `discover` prints for a USB device. */
export function usbAttributes(device: UsbDevice): Record<string, string> {
  return {
    vendor: device.vendorId,
    product: device.productId,
    port: device.portPath,
    busnum: String(device.busnum),
    devnum: String(device.devnum),
    class: device.deviceClass,
    interfaceClasses: device.interfaceClasses.join(','),
    ...(device.serial !== undefined ? { serial: device.serial } : {}),
    ...(device.manufacturer !== undefined ? { manufacturer: device.manufacturer } : {}),
    ...(device.product !== undefined ? { productName: device.product } : {}),
    ...(device.bcdDevice !== undefined ? { bcdDevice: device.bcdDevice } : {}),
    ...(device.controller !== undefined ? { controller: device.controller } : {}),
    hubs: device.hubs.join(','),
  };
}

/**
 * What a scan's devices yield for planning, kept per device object: a device the scan cache did not read again
 * is the same object, so a rescan evaluates match rules (and formats their reasons) only for what changed.
 */
const matches = new WeakMap<UsbDevice, WeakMap<readonly UsbMatchRule[], string | undefined>>();
const facts = new WeakMap<UsbDevice, { attributes: Record<string, string>; locality: UsbLocality }>();

/** {@link matchRules}, remembered per device and rule list (a reload brings new rule lists). */
function matchOf(rules: readonly UsbMatchRule[], device: UsbDevice): string | undefined {
  let byRules = matches.get(device);
  if (byRules === undefined) matches.set(device, (byRules = new WeakMap()));
  if (!byRules.has(rules)) byRules.set(rules, matchRules(rules, device));
  return byRules.get(rules);
}

/** {@link usbAttributes} and {@link usbLocality}, remembered per device. */
function factsOf(device: UsbDevice): { attributes: Record<string, string>; locality: UsbLocality } {
  let known = facts.get(device);
  if (known === undefined)
    facts.set(device, (known = { attributes: usbAttributes(device), locality: usbLocality(device) }));
  return known;
}

function usbGroupDevices(
  resource: string,
  group: UsbGroupSpec,
  devices: readonly UsbDevice[],
  { claimed, warnings }: Assignment,
): PluginDevice<DevicePayload>[] {
  const matched: UsbDevice[] = [];
  for (const device of devices) {
    if (matchOf(group.rules, device) !== undefined) continue;
    const owner = claimed.get(device.portPath);
    if (owner === undefined) {
      claimed.set(device.portPath, resource);
      matched.push(device);
    } else if (owner !== resource) {
      warnings.push(`${device.portPath} matches ${resource} too but is already advertised as ${owner}`);
    }
  }
  // Serials shared by several devices (cheap adapters often have one) would collide: those fall back to ports.
  const bySerial = new Map<string, number>();
  for (const d of matched) bySerial.set(stableUsbId(d), (bySerial.get(stableUsbId(d)) ?? 0) + 1);
  return matched.flatMap((device) => {
    let base = stableUsbId(device);
    if ((bySerial.get(base) ?? 0) > 1) {
      warnings.push(
        `${resource}: serial ${JSON.stringify(device.serial)} is shared by several devices; ${device.portPath} is identified by its port instead`,
      );
      base = portId(device);
    }
    const { permissions, nodes } = group;
    const payload: DevicePayload = { kind: 'usb', baseId: base, device, permissions, nodes };
    const { attributes, locality } = factsOf(device);
    return shareIds(base, group.count).map((id) => ({
      id,
      health: 'Healthy' as const,
      ...locality,
      attributes,
      payload,
    }));
  });
}

/**
 * generic-device-plugin's zip: each path's matches repeated `limit` times; the group yields as many devices as
 * the longest natural match list, capped by the shortest reusable list. An optional path matching nothing is
 * left out of the zip; a `mountPath` ending in `/` is a directory the match keeps its name in.
 */
function pathGroupDevices(
  group: PathGroupSpec,
  globs: ReadonlyMap<string, readonly string[]>,
): PluginDevice<DevicePayload>[] {
  const present = group.paths.flatMap((spec) => {
    const matches = globs.get(spec.path) ?? [];
    return matches.length === 0 && spec.optional ? [] : [{ spec, matches }];
  });
  const matches = present.map((p) => p.matches);
  const reusable = present.map(({ spec, matches: m }) => Array.from({ length: spec.limit }, () => m).flat());
  const length = Math.min(Math.max(0, ...matches.map((m) => m.length)), ...reusable.map((r) => r.length));
  // Reused matches (limit > 1) would repeat an ID: number them.
  const numbered = reusable.some((r, k) => r.length > (matches[k]?.length ?? 0));
  return Array.from({ length }, (_, i) => {
    const hostPaths = reusable.map((r) => r[i] ?? '');
    const base = sanitizeIdPart(hostPaths.map((p) => p.replace(/^\/dev\//, '')).join('+'));
    const devices: DeviceNode[] = [];
    const mounts: DeviceMount[] = [];
    present.forEach(({ spec }, k) => {
      const hostPath = hostPaths[k] ?? '';
      const mountPath = spec.mountPath ?? hostPath;
      const containerPath = mountPath.endsWith('/') ? mountPath + posix.basename(hostPath) : mountPath;
      if (spec.type === 'Mount') mounts.push({ hostPath, containerPath, readOnly: spec.readOnly });
      else devices.push({ hostPath, containerPath, permissions: spec.permissions });
    });
    const payload: DevicePayload = { kind: 'paths', baseId: base, devices, mounts };
    const ids =
      group.ids === 'gdp'
        ? Array.from({ length: group.count }, (_, slot) => gdpDeviceId(slot, hostPaths))
        : shareIds(numbered ? `${base}.${i}` : base, group.count);
    return ids.map((id) => ({ id, health: 'Healthy' as const, payload }));
  }).flat();
}

/** generic-device-plugin's ID of a path-group device: the hex sha1 of its slot number, then each matched path. */
export function gdpDeviceId(slot: number, hostPaths: readonly string[]): string {
  const hash = createHash('sha1').update(String(slot));
  for (const path of hostPaths) hash.update(path);
  return hash.digest('hex');
}
