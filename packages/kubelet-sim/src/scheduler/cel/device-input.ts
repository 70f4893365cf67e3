import { celMap, type CelMap, type CelValue } from '@bufbuild/cel';
import { quantityValue, semverValue } from './cel-values';
import { parseQuantity } from './quantity';
import { parseSemver } from './semver';
import type { DeviceAttributeValue, SelectorDevice } from './device-selector-types';

export type { DeviceAttributeValue, SelectorDevice } from './device-selector-types';

const mapSymbol = Symbol.for('@bufbuild/cel/map');
const emptyMap = celMap(new Map());

/** A map whose missing keys read as an empty map, as DRA's `attributes` and `capacity` do (unknown domain). */
function defaultingMap(inner: CelMap): CelMap {
  return {
    [mapSymbol]: {},
    get size() {
      return inner.size;
    },
    get: (key: never) => inner.get(key) ?? emptyMap,
    has: (key: never) => inner.has(key),
    keys: () => inner.keys(),
    values: () => inner.values(),
    entries: () => inner.entries(),
    forEach: (cb: never, thisArg?: unknown) => inner.forEach(cb, thisArg),
    [Symbol.iterator]: () => inner[Symbol.iterator](),
  } as unknown as CelMap;
}

/** Splits a qualified name at its first '/' into domain and id; an unqualified name is in the driver's domain. */
export function splitQualifiedName(name: string, driver: string): [string, string] {
  const slash = name.indexOf('/');
  return slash === -1 ? [driver, name] : [name.slice(0, slash), name.slice(slash + 1)];
}

const attributeValue = (name: string, a: DeviceAttributeValue): CelValue => {
  if (a.int !== undefined) return BigInt(a.int);
  if (a.bool !== undefined) return a.bool;
  if (a.string !== undefined) return a.string;
  if (a.version !== undefined) {
    try {
      return semverValue(parseSemver(a.version));
    } catch (err) {
      throw new Error(`attribute ${name}: parse semantic version: ${(err as Error).message}`);
    }
  }
  throw new Error(`attribute ${name}: unsupported attribute value`);
};

const grouped = <V>(
  entries: [string, V][],
  driver: string,
  value: (name: string, v: V) => CelValue,
): CelMap => {
  const domains = new Map<string, Map<string, CelValue>>();
  for (const [name, v] of entries) {
    const [domain, id] = splitQualifiedName(name, driver);
    const inner = domains.get(domain) ?? new Map<string, CelValue>();
    inner.set(id, value(name, v));
    domains.set(domain, inner);
  }
  return defaultingMap(celMap(new Map([...domains].map(([d, m]) => [d, celMap(m)]))));
};

/** The `device` variable for a device; throws on an attribute it cannot represent (upstream's error). */
export function deviceVariable(device: SelectorDevice): CelMap {
  return celMap(
    new Map<string, CelValue>([
      ['driver', device.driver],
      ['allowMultipleAllocations', device.allowMultipleAllocations ?? false],
      ['attributes', grouped(Object.entries(device.attributes ?? {}), device.driver, attributeValue)],
      [
        'capacity',
        grouped(Object.entries(device.capacity ?? {}), device.driver, (_, c) =>
          quantityValue(parseQuantity(c.value)),
        ),
      ],
    ]),
  );
}
