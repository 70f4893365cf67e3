import type { SharedCapacity } from '@kdp/core';
import { canonicalQuantity } from './canonical-quantity';
import { COUNTER_LIMITS, toApiCounters, type SliceCounterSet } from './pool-counters';

export type { SliceCounterSet } from './pool-counters';
import { canonicalRequestPolicy, toApiCapacity, type ApiDeviceCapacity } from './shared-capacity';

/** The standard attribute that places a device on the PCI bus (`0000:3b:00.0`), for alignment across drivers. */
export const PCI_BUS_ID_ATTRIBUTE = 'resource.kubernetes.io/pciBusID';
/** The standard attribute naming a device's PCIe root complex (`pci0000:3a`), for alignment across drivers. */
export const PCIE_ROOT_ATTRIBUTE = 'resource.kubernetes.io/pcieRoot';
/** The most devices one `resource.k8s.io/v1` ResourceSlice may hold. */
export const MAX_DEVICES_PER_SLICE = 128;

/** A device taint (KEP 5055): the scheduler keeps claims off the device, and evicts them on `NoExecute`, unless tolerated. */
export interface SliceDeviceTaint {
  /** A label key (`kdp.dev/unhealthy`). */
  readonly key: string;
  /** A label value (63 characters at most). */
  readonly value?: string | undefined;
  readonly effect: 'NoSchedule' | 'NoExecute';
  /** When the taint was added (RFC 3339); the API server sets it when absent. */
  readonly timeAdded?: string | undefined;
}

/** An attribute value: a number is an `int`, a boolean a `bool`, a string a `string`, `{ version }` a semver. */
export type SliceAttributeValue = number | boolean | string | { readonly version: string };

/** One device of the device model, as a ResourceSlice publishes it. */
export interface SliceDevice {
  /** A DNS label, unique in its pool. */
  readonly name: string;
  /** Attributes by name (`model`, or `example.com/model`; unqualified names are in the driver's domain). */
  readonly attributes?: Readonly<Record<string, SliceAttributeValue>> | undefined;
  /** Capacities by name, as quantities (`16Gi`, `4`), or with the request policy of a shared device. */
  readonly capacity?: Readonly<Record<string, string | number | SharedCapacity>> | undefined;
  /** Several claims may hold the device at once, each a share of its capacities (KEP 5075). */
  readonly allowMultipleAllocations?: boolean | undefined;
  /** The PCI address; published as `resource.kubernetes.io/pciBusID`. */
  readonly pciBusId?: string | undefined;
  /** The PCIe root; published as `resource.kubernetes.io/pcieRoot`. */
  readonly pcieRoot?: string | undefined;
  /** What the device takes of its pool's counter sets while allocated (KEP 4815); at most 2 entries, one per set. */
  readonly consumesCounters?:
    readonly { counterSet: string; counters: Readonly<Record<string, string | number>> }[] | undefined;
  /** Its taints (an Unhealthy device's `kdp.dev/unhealthy`). */
  readonly taints?: readonly SliceDeviceTaint[] | undefined;
}

/** A pool with counter sets: its devices and the counter sets they consume. */
export interface SlicePool {
  readonly devices: readonly SliceDevice[];
  readonly sharedCounters?: readonly SliceCounterSet[] | undefined;
}

/** One pool of the device model: its devices, or its devices and counter sets. */
export type SlicePoolEntry = readonly SliceDevice[] | SlicePool;

/** The device model of a node: pool name → its devices (a `Map` or a plain object). */
export type SlicePools = ReadonlyMap<string, SlicePoolEntry> | Readonly<Record<string, SlicePoolEntry>>;

/** A `resource.k8s.io/v1` device attribute. */
export type ApiDeviceAttribute =
  { int: number } | { bool: boolean } | { string: string } | { version: string };

/** A `resource.k8s.io/v1` `Device` as this package writes it. */
export interface ApiDevice {
  name: string;
  attributes?: Record<string, ApiDeviceAttribute>;
  capacity?: Record<string, ApiDeviceCapacity>;
  consumesCounters?: { counterSet: string; counters: Record<string, { value: string }> }[];
  taints?: SliceDeviceTaint[];
  allowMultipleAllocations?: boolean;
}

function toAttribute(device: string, name: string, value: SliceAttributeValue): ApiDeviceAttribute {
  switch (typeof value) {
    case 'number':
      if (!Number.isSafeInteger(value))
        throw new TypeError(`device ${device}: attribute ${name} is ${value}, not an integer`);
      return { int: value };
    case 'boolean':
      return { bool: value };
    case 'string':
      return { string: value };
    default:
      return { version: value.version };
  }
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A `resource.k8s.io/v1` Device for a model device: attributes (plus the standard PCI ones), capacities (keys sorted) and taints. */
export function toApiDevice(device: SliceDevice): ApiDevice {
  const given = device.attributes ?? {};
  const names = Object.keys(given);
  // The standard attributes win over a plugin's attribute of the same name.
  if (device.pciBusId !== undefined && !(PCI_BUS_ID_ATTRIBUTE in given)) names.push(PCI_BUS_ID_ATTRIBUTE);
  if (device.pcieRoot !== undefined && !(PCIE_ROOT_ATTRIBUTE in given)) names.push(PCIE_ROOT_ATTRIBUTE);
  const attributes: Record<string, ApiDeviceAttribute> = {};
  for (const name of names.sort(byCodeUnit)) {
    let value = given[name] as SliceAttributeValue;
    if (name === PCI_BUS_ID_ATTRIBUTE) value = device.pciBusId ?? value;
    else if (name === PCIE_ROOT_ATTRIBUTE) value = device.pcieRoot ?? value;
    attributes[name] = toAttribute(device.name, name, value);
  }
  const capacities = device.capacity ?? {};
  const capacityNames = Object.keys(capacities);
  const capacity: Record<string, ApiDeviceCapacity> = {};
  for (const name of capacityNames.sort(byCodeUnit))
    capacity[name] = toApiCapacity(capacities[name] as string | number | SharedCapacity);
  const consumesCounters = [...(device.consumesCounters ?? [])]
    .sort((a, b) => byCodeUnit(a.counterSet, b.counterSet))
    .map((use) => ({
      counterSet: use.counterSet,
      counters: toApiCounters(
        use.counters,
        COUNTER_LIMITS.countersPerConsumption,
        `device ${device.name}: consumption of counter set ${use.counterSet}`,
      ),
    }));
  return {
    name: device.name,
    ...(names.length > 0 ? { attributes } : {}),
    ...(capacityNames.length > 0 ? { capacity } : {}),
    ...(consumesCounters.length > 0 ? { consumesCounters } : {}),
    ...(device.allowMultipleAllocations === true ? { allowMultipleAllocations: true } : {}),
    ...((device.taints?.length ?? 0) > 0 ? { taints: (device.taints ?? []).map(toApiTaint) } : {}),
  };
}

/** A taint as the API writes it: fields in the API's order, absent ones left out. */
function toApiTaint(taint: SliceDeviceTaint): SliceDeviceTaint {
  return {
    key: taint.key,
    ...(taint.value !== undefined && taint.value !== '' ? { value: taint.value } : {}),
    effect: taint.effect,
    ...(taint.timeAdded !== undefined ? { timeAdded: taint.timeAdded } : {}),
  };
}

const chunkRe = /(\d+)|(\D+)/g;

/** A device name cut into its runs of digits and of other characters, for {@link compareNameChunks}. */
function nameChunks(name: string): readonly string[] {
  return name.match(chunkRe) ?? [];
}

const isDigit = (text: string): boolean => text.charCodeAt(0) >= 48 && text.charCodeAt(0) <= 57;

/** {@link compareDeviceNames} of two names already cut by {@link nameChunks}. */
function compareNameChunks(a: string, x: readonly string[], b: string, y: readonly string[]): number {
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p === q) continue;
    if (isDigit(p) && isDigit(q)) {
      const diff = Number(p) - Number(q);
      if (diff !== 0) return diff;
    }
    return byCodeUnit(p, q);
  }
  return x.length - y.length || byCodeUnit(a, b);
}

/** Orders device names naturally (`vf2` before `vf10`), then by code unit: the order does not depend on the locale. */
export function compareDeviceNames(a: string, b: string): number {
  return compareNameChunks(a, nameChunks(a), b, nameChunks(b));
}

/** Whether a device counts for the lower per-slice limit (it consumes counters or has taints). */
const isAdvanced = (device: ApiDevice): boolean =>
  device.consumesCounters !== undefined || device.taints !== undefined;

/**
 * Splits a pool's devices into slices: sorted by name ({@link compareDeviceNames}) and cut every `max`
 * devices — every 64 at most in a slice holding a device that consumes counters or has taints, as the API allows —
 * so the same devices always give the same slices; a pool without devices is one empty slice.
 * Throws on a duplicate device name.
 */
export function splitPool(
  devices: readonly SliceDevice[],
  max: number = MAX_DEVICES_PER_SLICE,
): ApiDevice[][] {
  // Each name is cut once, not at every comparison.
  const sorted = devices
    .map((device) => ({ device: toApiDevice(device), chunks: nameChunks(device.name) }))
    .sort((a, b) => compareNameChunks(a.device.name, a.chunks, b.device.name, b.chunks))
    .map((entry) => entry.device);
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i]?.name === sorted[i - 1]?.name) throw new Error(`device ${sorted[i]?.name} is listed twice`);
  const slices: ApiDevice[][] = [];
  const advancedMax = Math.min(max, COUNTER_LIMITS.devicesPerSliceWithCounters);
  let current: ApiDevice[] = [];
  let advanced = false;
  for (const device of sorted) {
    const nowAdvanced: boolean = advanced || isAdvanced(device);
    if (current.length >= (nowAdvanced ? advancedMax : max)) {
      slices.push(current);
      current = [];
      advanced = isAdvanced(device);
    } else advanced = nowAdvanced;
    current.push(device);
  }
  if (current.length > 0 || slices.length === 0) slices.push(current);
  return slices;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(canonical);
  if (typeof value !== 'object' || value === null) return value ?? undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byCodeUnit)) {
    const v = canonical((value as Record<string, unknown>)[key]);
    if (v !== undefined && !(typeof v === 'object' && v !== null && Object.keys(v).length === 0))
      out[key] = v;
  }
  return out;
}

/**
 * A text that is the same for two devices (or two counter sets) exactly when the API server would hold the same:
 * key order, empty fields and the spelling of quantities (`1Gi` / `1024Mi`) do not count.
 */
export function deviceKey(device: unknown): string {
  if (typeof device !== 'object' || device === null) return JSON.stringify(device ?? null);
  const copy = { ...(device as Record<string, unknown>) };
  const capacity = canonicalCounters(copy['capacity']);
  if (typeof capacity === 'object' && capacity !== null)
    copy['capacity'] = Object.fromEntries(
      Object.entries(capacity).map(([name, cap]) => [name, canonicalRequestPolicy(cap)]),
    );
  if (copy['counters'] !== undefined) copy['counters'] = canonicalCounters(copy['counters']);
  const uses = copy['consumesCounters'];
  if (Array.isArray(uses))
    copy['consumesCounters'] = uses.map((use: unknown) =>
      typeof use === 'object' && use !== null
        ? { ...use, counters: canonicalCounters((use as { counters?: unknown }).counters) }
        : use,
    );
  return JSON.stringify(canonical(copy));
}

/** Capacities or counters (`{ name: { value } }`) with each quantity in canonical form, for comparison. */
function canonicalCounters(counters: unknown): unknown {
  if (typeof counters !== 'object' || counters === null) return counters;
  const out: Record<string, unknown> = {};
  for (const [name, counter] of Object.entries(counters as Record<string, unknown>)) {
    const value = (counter as { value?: unknown } | null)?.value;
    out[name] =
      typeof value === 'string' || typeof value === 'number'
        ? { ...(counter as object), value: canonicalQuantity(String(value)) }
        : counter;
  }
  return out;
}
