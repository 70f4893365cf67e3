import { stepsIn } from '../../scheduler/allocator/consumable-capacity';
import {
  addQuantity,
  compareQuantity,
  parseQuantity,
  subQuantity,
  type Quantity,
} from '../../scheduler/cel/quantity';
import { checkResult } from '../check-catalog';
import type { ConformanceCheck } from '../conformance-check';
import type { ApiObject } from './dra-check-api';
import { draCheckCatalog } from './dra-check-catalog';

/** Upstream's `CapacityRequestPolicyDiscreteMaxOptions`. */
const MAX_VALID_VALUES = 10;

type Fields = Record<string, unknown>;
const list = (value: unknown): Fields[] => (Array.isArray(value) ? (value as Fields[]) : []);
const fields = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;

/** A quantity field, parsed; `undefined` when absent; throws (with the field's name) when it is no quantity. */
function quantity(value: unknown, field: string): Quantity | undefined {
  if (value === undefined) return undefined;
  try {
    return parseQuantity(String(value));
  } catch {
    throw new Error(`${field} ${JSON.stringify(value)} is not a quantity`);
  }
}

const below = (a: Quantity, b: Quantity): boolean => compareQuantity(a, b) < 0;

/** What is wrong with a `validValues` policy, as upstream's `validateRequestPolicyValidValues` sees it. */
function validValuesProblems(values: unknown[], fallback: Quantity, capacity: Quantity): string[] {
  if (values.length > MAX_VALID_VALUES) return [`${values.length} validValues, at most ${MAX_VALID_VALUES}`];
  const parsed = values.map((v, i) => quantity(v, `validValues[${i}]`) as Quantity);
  const problems: string[] = [];
  parsed.forEach((v, i) => {
    const previous = parsed[i - 1];
    if (previous !== undefined && !below(previous, v))
      problems.push(`validValues not strictly ascending at ${JSON.stringify(values[i])}`);
    if (below(capacity, v)) problems.push(`validValues ${JSON.stringify(values[i])} above the capacity`);
  });
  if (!parsed.some((v) => compareQuantity(v, fallback) === 0))
    problems.push('default not one of validValues');
  return problems;
}

/** What is wrong with a `validRange` policy, as upstream's `validateRequestPolicyRange` sees it. */
function validRangeProblems(range: Fields, fallback: Quantity, capacity: Quantity): string[] {
  const min = quantity(range['min'], 'validRange.min');
  if (min === undefined) return ['validRange without min'];
  const max = quantity(range['max'], 'validRange.max');
  const step = quantity(range['step'], 'validRange.step');
  const problems: string[] = [];
  if (below(capacity, min)) problems.push('validRange.min above the capacity');
  if (below(fallback, min)) problems.push('default below validRange.min');
  if (max !== undefined) {
    if (below(max, min)) problems.push('validRange.max below min');
    if (below(capacity, max)) problems.push('validRange.max above the capacity');
    if (below(max, fallback)) problems.push('default above validRange.max');
  }
  if (step === undefined) return problems;
  if (step.num <= 0n) return [...problems, 'validRange.step not positive'];
  if (below(capacity, addQuantity(min, step)))
    problems.push('one validRange.step from min is above the capacity');
  for (const [name, value] of [
    ['default', fallback],
    ['validRange.max', max],
  ] as const)
    if (value !== undefined && stepsIn(subQuantity(value, min), step).den !== 1n)
      problems.push(`${name} not min plus a whole number of steps`);
  return problems;
}

/** What is wrong with one capacity of a shared device: its value and its request policy. */
function capacityProblems(capacity: Fields): string[] {
  const value = quantity(capacity['value'], 'value');
  if (value === undefined) return ['no value'];
  const policy = fields(capacity['requestPolicy']);
  if (policy === undefined) return [];
  const values = Array.isArray(policy['validValues']) ? (policy['validValues'] as unknown[]) : [];
  const range = fields(policy['validRange']);
  if (values.length > 0 && range !== undefined) return ['both validValues and validRange, not exactly one'];
  if (values.length === 0 && range === undefined) return [];
  const fallback = quantity(policy['default'], 'default');
  if (fallback === undefined) return ['no default, required with validValues or validRange'];
  return range === undefined
    ? validValuesProblems(values, fallback, value)
    : validRangeProblems(range, fallback, value);
}

/** What is wrong with one device of `allowMultipleAllocations`: no capacity, or a capacity the API refuses. */
function sharedDeviceProblems(device: Fields): string[] {
  const capacities = Object.entries(fields(device['capacity']) ?? {});
  if (capacities.length === 0) return ['no capacity to share'];
  return capacities.flatMap(([name, capacity]) => {
    let found: string[];
    try {
      found = capacityProblems(fields(capacity) ?? {});
    } catch (error) {
      found = [(error as Error).message];
    }
    return found.length === 0 ? [] : [`capacity ${name} (${found.join(', ')})`];
  });
}

/**
 * The `shared-capacity` check of the published slices: every device with `allowMultipleAllocations` has a
 * capacity, and each capacity's request policy is one the API server accepts (one of `validValues`/`validRange`,
 * a default that is valid, ascending values, a range within the capacity on whole steps); passed when no
 * device is shared.
 */
export function checkSharedCapacity(slices: readonly ApiObject[]): ConformanceCheck {
  const { sharedCapacity } = draCheckCatalog;
  const problems: string[] = [];
  let count = 0;
  for (const slice of slices)
    for (const device of list((slice['spec'] as Fields | undefined)?.['devices'])) {
      if (device['allowMultipleAllocations'] !== true) continue;
      count += 1;
      const found = sharedDeviceProblems(device);
      if (found.length > 0) problems.push(`${String(device['name'])}: ${found.join(', ')}`);
    }
  // A driver that shares no device has nothing to declare here.
  if (count === 0)
    return checkResult(sharedCapacity, 'pass', 'no published device is shared (allowMultipleAllocations)');
  return problems.length === 0
    ? checkResult(sharedCapacity, 'pass', `${count} shared device(s), capacities and request policies valid`)
    : checkResult(
        sharedCapacity,
        'warn',
        `${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` and ${problems.length - 5} more` : ''}; ` +
          'the API server refuses such a slice (422), or the scheduler can never allocate a share of it',
      );
}
