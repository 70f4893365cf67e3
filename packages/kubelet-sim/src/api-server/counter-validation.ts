import { asArray, asRecord, dnsLabel, type Errors, quantityRe, uniqueNames } from './field-errors';
import {
  ResourceSliceMaxCounterSets,
  ResourceSliceMaxCountersPerCounterSet,
  ResourceSliceMaxCountersPerDeviceCounterConsumption,
  ResourceSliceMaxDeviceCounterConsumptionsPerDevice,
} from './validation-limits';

/** Counters (`{ name: { value } }`): at most `max`, names DNS labels, values quantities. */
function counters(errors: Errors, field: string, value: unknown, max: number): void {
  const entries = Object.entries(asRecord(value));
  if (entries.length === 0) errors.required(field, '');
  if (entries.length > max) errors.tooMany(field, entries.length, max);
  for (const [name, counter] of entries) {
    dnsLabel(errors, `${field}[${name}]`, name);
    const quantity = asRecord(counter)['value'];
    if (typeof quantity !== 'string' || !quantityRe.test(quantity))
      errors.invalid(`${field}[${name}].value`, quantity, 'must be a quantity');
  }
}

/**
 * A ResourceSlice's `sharedCounters` (KEP 4815) as kube-apiserver 1.35 checks them: at most 8 sets, names DNS labels
 * and unique, each with 1–32 counters.
 */
export function validateSharedCounters(errors: Errors, sets: unknown): void {
  const list = asArray(sets);
  if (list.length > ResourceSliceMaxCounterSets)
    errors.tooMany('spec.sharedCounters', list.length, ResourceSliceMaxCounterSets);
  list.forEach((set, i) => {
    const field = `spec.sharedCounters[${i}]`;
    dnsLabel(errors, `${field}.name`, asRecord(set)['name']);
    counters(errors, `${field}.counters`, asRecord(set)['counters'], ResourceSliceMaxCountersPerCounterSet);
  });
  uniqueNames(errors, 'spec.sharedCounters', list);
}

/** A device's `consumesCounters`: at most 2, one per counter set, each with 1–32 counters. */
export function validateConsumesCounters(errors: Errors, field: string, uses: unknown): void {
  const list = asArray(uses);
  if (list.length > ResourceSliceMaxDeviceCounterConsumptionsPerDevice)
    errors.tooMany(field, list.length, ResourceSliceMaxDeviceCounterConsumptionsPerDevice);
  const seen = new Set<string>();
  list.forEach((use, i) => {
    const set = asRecord(use)['counterSet'];
    dnsLabel(errors, `${field}[${i}].counterSet`, set);
    if (typeof set === 'string' && seen.has(set)) errors.duplicate(`${field}[${i}].counterSet`, set);
    if (typeof set === 'string') seen.add(set);
    counters(
      errors,
      `${field}[${i}].counters`,
      asRecord(use)['counters'],
      ResourceSliceMaxCountersPerDeviceCounterConsumption,
    );
  });
}
