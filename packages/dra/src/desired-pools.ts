import { messageOf } from './message-of';
import { splitCounterSets, type ApiCounterSet } from './pool-counters';
import { splitPool, type ApiDevice, type SlicePoolEntry, type SlicePools } from './pool-slices';

/** What one slice of a pool holds: devices, or (Kubernetes 1.35's layout) counter sets and no devices. */
export type SliceContent =
  | { readonly devices: ApiDevice[]; readonly sharedCounters?: undefined }
  | { readonly sharedCounters: ApiCounterSet[]; readonly devices?: undefined };

/** One pool of the device model, cut into slices. */
export interface DesiredPool {
  /** The device slices, then the counter-set slices. */
  readonly slices: readonly SliceContent[];
  /** The JSON text of each slice's content ({@link contentText}): what is stored reads the same unless it differs. */
  readonly texts: readonly string[];
  /** The whole pool's content, to recognise it again after a 422. */
  readonly key: string;
}

/** The text a slice's devices and counter sets are compared by, stored or desired. */
export function contentText(spec: {
  readonly devices?: readonly unknown[] | undefined;
  readonly sharedCounters?: unknown;
}): string {
  return JSON.stringify([spec.devices ?? [], spec.sharedCounters ?? []]);
}

/**
 * The device model cut into slices, by pool: devices at most `maxPerSlice` a slice (64 where one consumes counters),
 * then the counter sets in slices of their own, 8 a slice (no empty device slice beside them). Throws on a duplicate device or counter set name, on a
 * device consuming what its pool's counter sets lack, and past the API's other counter limits.
 */
export function toDesiredPools(pools: SlicePools, maxPerSlice: number): Map<string, DesiredPool> {
  const entries = pools instanceof Map ? [...pools.entries()] : Object.entries(pools);
  const result = new Map<string, DesiredPool>();
  for (const [pool, entry] of entries as [string, SlicePoolEntry][]) {
    const { devices, sharedCounters = [] } = 'devices' in entry ? entry : { devices: entry };
    let slices: SliceContent[];
    try {
      slices = [
        ...splitPool(devices, maxPerSlice)
          .filter((list) => list.length > 0 || sharedCounters.length === 0)
          .map((list) => ({ devices: list })),
        ...splitCounterSets(sharedCounters, devices).map((sets) => ({ sharedCounters: sets })),
      ];
    } catch (error) {
      throw new Error(`pool ${pool}: ${messageOf(error)}`);
    }
    const texts = slices.map(contentText);
    result.set(pool, { slices, texts, key: texts.join('\n') });
  }
  return result;
}
