import {
  addQuantity,
  compareQuantity,
  fraction,
  parseQuantity,
  subQuantity,
  type Quantity,
} from '../cel/quantity';
import type { CapacityRequestPolicy, SliceDevice } from '../dra-types';

type Capacity = NonNullable<SliceDevice['capacity']>[string];

const q = parseQuantity;

/** `span / step`, exactly (a whole number of steps when its denominator is 1). */
export const stepsIn = (span: Quantity, step: Quantity): Quantity =>
  fraction(span.num * step.den, span.den * step.num);

/** Rounds a request up to the policy (minimum, step, next valid value); no request: the default or everything. */
function consumedFor(requested: Quantity | undefined, capacity: Capacity): Quantity {
  const policy = capacity.requestPolicy;
  if (requested === undefined) return q(policy?.default ?? capacity.value);
  const range = policy?.validRange;
  if (range?.min !== undefined) {
    const min = q(range.min);
    if (compareQuantity(requested, min) < 0) return min;
    if (range.step === undefined) return requested;
    // min + step * ceil((requested - min) / step), exactly (upstream's inf.Dec arithmetic, any scale).
    const step = q(range.step);
    const steps = stepsIn(subQuantity(requested, min), step);
    const n = steps.num / steps.den + (steps.num % steps.den === 0n ? 0n : 1n);
    return addQuantity(min, fraction(step.num * n, step.den));
  }
  for (const valid of policy?.validValues ?? []) {
    if (compareQuantity(requested, q(valid)) <= 0) return q(valid);
  }
  return requested;
}

function violates(value: Quantity, policy: CapacityRequestPolicy | undefined): boolean {
  if (policy === undefined) return false;
  if (policy.default !== undefined && compareQuantity(value, q(policy.default)) === 0) return false;
  const range = policy.validRange;
  if (range !== undefined) {
    if (range.max !== undefined && compareQuantity(value, q(range.max)) > 0) return true;
    if (range.step !== undefined) {
      // (value - min) must be a whole number of steps, exactly.
      const span = subQuantity(value, range.min === undefined ? fraction(0n, 1n) : q(range.min));
      return stepsIn(span, q(range.step)).den !== 1n;
    }
    return false;
  }
  if ((policy.validValues ?? []).length > 0)
    return !(policy.validValues ?? []).some((v) => compareQuantity(value, q(v)) === 0);
  return false;
}

/** The capacity a request consumes of a device, per capacity name (every capacity of the device). */
export function consumedCapacity(
  requests: Readonly<Record<string, string>> | undefined,
  device: SliceDevice,
): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, capacity] of Object.entries(device.capacity ?? {})) {
    const requested = requests?.[name];
    out.set(name, consumedFor(requested === undefined ? undefined : q(requested), capacity));
  }
  return out;
}

/**
 * Whether the request fits the device's remaining capacity (upstream's CmpRequestOverCapacity): every requested
 * name must exist, every consumed value obey the request policy, and consumed + already held ≤ the capacity.
 */
export function capacityFits(
  requests: Readonly<Record<string, string>> | undefined,
  device: SliceDevice,
  held: ReadonlyMap<string, Quantity> | undefined,
  allocating: ReadonlyMap<string, Quantity> | undefined,
): boolean {
  const capacity = device.capacity ?? {};
  if (Object.keys(requests ?? {}).some((name) => capacity[name] === undefined)) return false;
  for (const [name, consumed] of consumedCapacity(requests, device)) {
    const cap = capacity[name] as Capacity;
    if (violates(consumed, cap.requestPolicy)) return false;
    let total = addQuantity(consumed, held?.get(name) ?? fraction(0n, 1n));
    total = addQuantity(total, allocating?.get(name) ?? fraction(0n, 1n));
    if (compareQuantity(total, q(cap.value)) > 0) return false;
  }
  return true;
}
