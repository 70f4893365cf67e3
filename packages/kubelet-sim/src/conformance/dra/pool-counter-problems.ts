import { compareQuantity, parseQuantity } from '../../scheduler/cel/quantity';
import type { ApiObject } from './dra-check-api';

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A counter's quantity, or undefined when it is not one. */
function quantityOf(counter: unknown): ReturnType<typeof parseQuantity> | undefined {
  try {
    return parseQuantity(String(record(counter)['value']));
  } catch {
    return undefined;
  }
}

/**
 * What the scheduler would hold against a pool's counters (KEP 4815), over the slices of its newest generation:
 * a counter set named twice in the pool, a device consuming from a set or a counter the pool lacks (the scheduler
 * then takes the whole pool for invalid), or more of a counter than its set has (the device is never allocatable).
 */
export function poolCounterProblems(pool: string, slices: readonly ApiObject[]): string[] {
  const problems: string[] = [];
  const sets = new Map<string, Record<string, unknown>>();
  for (const slice of slices) {
    for (const set of list(record(slice['spec'])['sharedCounters']).map(record)) {
      const name = String(set['name'] ?? '');
      if (sets.has(name)) problems.push(`pool ${pool}: counter set ${name} published twice`);
      sets.set(name, record(set['counters']));
    }
  }
  for (const slice of slices) {
    for (const device of list(record(slice['spec'])['devices']).map(record)) {
      for (const use of list(device['consumesCounters']).map(record)) {
        const setName = String(use['counterSet'] ?? '');
        const set = sets.get(setName);
        const where = `pool ${pool}: device ${String(device['name'])}`;
        if (set === undefined) {
          problems.push(`${where} consumes from counter set ${setName}, which the pool lacks`);
          continue;
        }
        for (const [counter, value] of Object.entries(record(use['counters']))) {
          const have = set[counter] === undefined ? undefined : quantityOf(set[counter]);
          const want = quantityOf(value);
          if (have === undefined)
            problems.push(`${where} consumes ${setName}/${counter}, which the set lacks`);
          else if (want !== undefined && compareQuantity(want, have) > 0)
            problems.push(`${where} consumes more ${setName}/${counter} than the set has`);
        }
      }
    }
  }
  return problems;
}
