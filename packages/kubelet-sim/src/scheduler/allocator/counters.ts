import {
  addQuantity,
  compareQuantity,
  fraction,
  parseQuantity,
  subQuantity,
  type Quantity,
} from '../cel/quantity';
import type { SliceDevice } from '../dra-types';
import { type AllocatedState, deviceId, isAllocated } from './allocated-state';
import type { Pool } from './pools';

/** Shared counters during the search: what allocated devices left, and what the search takes. */
export interface CounterBook {
  /** Takes the device's counters if they are all available; false (and nothing taken) if not. */
  take(pool: Pool, device: SliceDevice): boolean;
  /** Gives back what `take` took. */
  give(pool: Pool, device: SliceDevice): void;
}

type Sets = Map<string, Map<string, Quantity>>;

/** Creates the counter book over the allocated state. */
export function createCounterBook(allocated: AllocatedState): CounterBook {
  const available = new Map<Pool, Sets>();
  const consumed = new Map<Pool, Sets>();
  const availableIn = (pool: Pool): Sets => {
    let sets = available.get(pool);
    if (sets !== undefined) return sets;
    sets = new Map(
      [...pool.counterSets].map(([name, counters]) => [
        name,
        new Map(Object.entries(counters).map(([c, v]) => [c, parseQuantity(v.value)])),
      ]),
    );
    for (const slice of [...pool.slices, ...pool.otherSlices]) {
      for (const device of slice.spec.devices ?? []) {
        if (!isAllocated(allocated, deviceId(pool.driver, pool.name, device.name))) continue;
        for (const use of device.consumesCounters ?? []) {
          const set = sets.get(use.counterSet);
          for (const [name, c] of Object.entries(use.counters)) {
            const have = set?.get(name);
            if (have !== undefined) set?.set(name, subQuantity(have, parseQuantity(c.value)));
          }
        }
      }
    }
    available.set(pool, sets);
    return sets;
  };
  const change = (pool: Pool, device: SliceDevice, sign: 1 | -1): void => {
    const sets = consumed.get(pool) ?? new Map<string, Map<string, Quantity>>();
    consumed.set(pool, sets);
    for (const use of device.consumesCounters ?? []) {
      const set = sets.get(use.counterSet) ?? new Map<string, Quantity>();
      sets.set(use.counterSet, set);
      for (const [name, c] of Object.entries(use.counters)) {
        const q = parseQuantity(c.value);
        const have = set.get(name) ?? fraction(0n, 1n);
        set.set(name, sign === 1 ? addQuantity(have, q) : subQuantity(have, q));
      }
    }
  };
  return {
    take(pool, device) {
      change(pool, device, 1);
      const used = consumed.get(pool);
      const available = availableIn(pool);
      // As kube-scheduler: only the counters this device consumes must fit; another set overdrawn (its counters
      // shrank under allocated devices) blocks nothing else.
      for (const use of device.consumesCounters ?? []) {
        for (const name of Object.keys(use.counters)) {
          const value = available.get(use.counterSet)?.get(name) ?? fraction(0n, 1n);
          if (compareQuantity(value, used?.get(use.counterSet)?.get(name) ?? fraction(0n, 1n)) < 0) {
            change(pool, device, -1);
            return false;
          }
        }
      }
      return true;
    },
    give: (pool, device) => change(pool, device, -1),
  };
}
