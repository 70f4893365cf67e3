import type { NicFunction } from '../scan/nic-function';
import type { SriovSelector } from '../config';
import { parseVfRange, type VfRangeSelector } from './vf-range';

/** Whether a function passes one selector object; on failure, which selector failed and why. */
export type SelectorVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: string;
      /** The failure comes from data that may be missing only for now (no driver, netdev or RDMA device). */
      readonly transient: boolean;
    };

const list = (values: readonly string[]): string => `[${values.join(',')}]`;

/**
 * Checks a function against one selector object of a pool, as upstream does: every key present must match
 * (AND), any value of a key may (OR). Accelerator pools use only vendors, devices, drivers, pciAddresses and
 * acpiIndexes. `pKeys` compares the partition key numerically (`0x1` matches the kernel's `0x0001`).
 */
export function matchSelector(
  fn: NicFunction,
  selector: SriovSelector,
  deviceType: 'netDevice' | 'accelerator',
): SelectorVerdict {
  const fail = (reason: string, transient = false): SelectorVerdict => ({ ok: false, reason, transient });
  const { vendors, devices, drivers, pciAddresses, acpiIndexes } = selector;
  if (vendors && !vendors.some((v) => sameHexId(v, fn.vendor))) {
    return fail(`vendor ${fn.vendor ?? 'unknown'} does not match selector vendors=${list(vendors)}`);
  }
  if (devices && !devices.some((d) => sameHexId(d, fn.device))) {
    return fail(`device ${fn.device ?? 'unknown'} does not match selector devices=${list(devices)}`);
  }
  if (drivers && !drivers.includes(fn.driver ?? '')) {
    return fn.driver === undefined
      ? fail(`no driver is bound; selector drivers=${list(drivers)}`, true)
      : fail(`driver ${fn.driver} does not match selector drivers=${list(drivers)}`);
  }
  if (pciAddresses && !pciAddresses.includes(fn.address)) {
    return fail(`address ${fn.address} does not match selector pciAddresses=${list(pciAddresses)}`);
  }
  if (acpiIndexes && !acpiIndexes.includes(fn.acpiIndex ?? '')) {
    return fail(
      `acpi_index ${fn.acpiIndex ?? 'absent'} does not match selector acpiIndexes=${list(acpiIndexes)}`,
    );
  }
  if (deviceType === 'accelerator') return { ok: true };

  const { pfNames, rootDevices, linkTypes, isRdma, pKeys } = selector;
  if (pfNames) {
    const ranges = parsedRanges(pfNames);
    const pfName = fn.pfName;
    if (pfName === undefined) {
      return fail(`no PF interface name is known; selector pfNames=${list(pfNames)}`, true);
    }
    if (!ranges.some((r) => r.target.toLowerCase() === pfName.toLowerCase() && indexMatches(r, fn))) {
      return fail(`${describeVf(fn, pfName)} does not match selector pfNames=${list(pfNames)}`);
    }
  }
  if (rootDevices) {
    const ranges = parsedRanges(rootDevices);
    const root = fn.vf?.pfAddress ?? fn.address;
    if (!ranges.some((r) => r.target === root && indexMatches(r, fn))) {
      return fail(`${describeVf(fn, root)} does not match selector rootDevices=${list(rootDevices)}`);
    }
  }
  if (linkTypes && !linkTypes.some((t) => t.toLowerCase() === fn.linkType?.toLowerCase())) {
    return fn.linkType === undefined
      ? fail(`link type unknown (no netdev); selector linkTypes=${list(linkTypes)}`, true)
      : fail(`link type ${fn.linkType} does not match selector linkTypes=${list(linkTypes)}`);
  }
  if (isRdma === true && fn.rdmaDevices.length === 0) {
    return fail('no RDMA device (infiniband/) but selector isRdma=true', true);
  }
  if (pKeys && !pKeys.some((k) => samePKey(k, fn.pKey))) {
    return fn.pKey === undefined
      ? fail(`no InfiniBand partition key (port 1, index 0); selector pKeys=${list(pKeys)}`, true)
      : fail(`partition key ${fn.pKey} does not match selector pKeys=${list(pKeys)}`);
  }
  return { ok: true };
}

/** "8086" matches "0x8086", "8086" and "8086 " case-insensitively. */
function sameHexId(wanted: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  return wanted.trim().toLowerCase().replace(/^0x/, '') === actual;
}

/** "0x1", "1" and "0x0001" name the same partition key. */
function samePKey(wanted: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  const a = Number.parseInt(wanted.replace(/^0x/i, ''), 16);
  return Number.isInteger(a) && a === Number.parseInt(actual.replace(/^0x/i, ''), 16);
}

function indexMatches(range: VfRangeSelector, fn: NicFunction): boolean {
  if (range.indexes === undefined) return true;
  return fn.vf !== undefined && range.indexes.has(fn.vf.index);
}

function describeVf(fn: NicFunction, pf: string): string {
  return fn.vf === undefined ? `PF ${pf}` : `VF ${fn.vf.index} of ${pf}`;
}

const rangeCache = new Map<string, VfRangeSelector | undefined>();

/** Parses (and caches) range entries; malformed ones were refused by the config schema and are skipped. */
function parsedRanges(entries: readonly string[]): VfRangeSelector[] {
  const out: VfRangeSelector[] = [];
  for (const entry of entries) {
    let selector = rangeCache.get(entry);
    if (!rangeCache.has(entry)) {
      const parsed = parseVfRange(entry);
      selector = parsed.ok ? parsed.selector : undefined;
      if (rangeCache.size > 4096) rangeCache.clear();
      rangeCache.set(entry, selector);
    }
    if (selector !== undefined) out.push(selector);
  }
  return out;
}
