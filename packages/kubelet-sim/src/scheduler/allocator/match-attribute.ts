import type { DeviceAttributeValue } from '../cel/device-input';
import type { SliceDevice } from '../dra-types';

/** A claim's `matchAttribute` constraint during the search: all devices of its requests share one value. */
export interface MatchAttribute {
  /** Adds a device of `base` (or `base/sub`); false when the device breaks the constraint. */
  add(base: string, sub: string | undefined, driver: string, device: SliceDevice): boolean;
  /** Undoes an add that succeeded. */
  remove(base: string, sub: string | undefined): void;
}

const lookup = (device: SliceDevice, driver: string, name: string): DeviceAttributeValue | undefined => {
  const direct = device.attributes?.[name];
  if (direct !== undefined) return direct;
  const slash = name.indexOf('/');
  if (slash < 0 || name.slice(0, slash) !== driver) return undefined;
  return device.attributes?.[name.slice(slash + 1)];
};

const same = (a: DeviceAttributeValue, b: DeviceAttributeValue): boolean => {
  if (b.string !== undefined) return a.string === b.string;
  if (b.int !== undefined) return a.int !== undefined && BigInt(a.int) === BigInt(b.int);
  if (b.bool !== undefined) return a.bool === b.bool;
  if (b.version !== undefined) return a.version === b.version;
  return false;
};

/** Creates the constraint for `attribute` over `requests` (empty: all requests of the claim). */
export function createMatchAttribute(attribute: string, requests: readonly string[]): MatchAttribute {
  const names = new Set(requests);
  const applies = (base: string, sub: string | undefined): boolean =>
    names.size === 0 || names.has(base) || (sub !== undefined && names.has(`${base}/${sub}`));
  let value: DeviceAttributeValue | undefined;
  let count = 0;
  return {
    add(base, sub, driver, device) {
      if (!applies(base, sub)) return true;
      const found = lookup(device, driver, attribute);
      if (found === undefined) return false;
      if (count === 0) value = found;
      else if (value === undefined || !same(value, found)) return false;
      count++;
      return true;
    },
    remove(base, sub) {
      if (applies(base, sub)) count--;
    },
  };
}
