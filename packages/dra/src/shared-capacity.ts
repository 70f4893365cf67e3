import type { CapacityRequestPolicy, SharedCapacity } from '@kdp/core';
import { canonicalQuantity } from './canonical-quantity';

/** A `resource.k8s.io/v1` `CapacityRequestPolicy` as this package writes it (quantities as strings). */
export interface ApiCapacityRequestPolicy {
  default?: string;
  validRange?: { min: string; max?: string; step?: string };
  validValues?: string[];
}

/** A `resource.k8s.io/v1` `DeviceCapacity` as this package writes it. */
export interface ApiDeviceCapacity {
  value: string;
  requestPolicy?: ApiCapacityRequestPolicy;
}

const text = (value: string | number): string => String(value);

function toApiPolicy(policy: CapacityRequestPolicy): ApiCapacityRequestPolicy {
  const range = policy.validRange;
  return {
    ...(policy.default !== undefined ? { default: text(policy.default) } : {}),
    ...(range !== undefined
      ? {
          validRange: {
            min: text(range.min),
            ...(range.max !== undefined ? { max: text(range.max) } : {}),
            ...(range.step !== undefined ? { step: text(range.step) } : {}),
          },
        }
      : {}),
    ...(policy.validValues !== undefined && policy.validValues.length > 0
      ? { validValues: policy.validValues.map(text) }
      : {}),
  };
}

/** A capacity of the device model (a quantity, or a shared capacity with its request policy) as the API writes it. */
export function toApiCapacity(capacity: string | number | SharedCapacity): ApiDeviceCapacity {
  if (typeof capacity !== 'object') return { value: text(capacity) };
  return {
    value: text(capacity.value),
    ...(capacity.requestPolicy !== undefined ? { requestPolicy: toApiPolicy(capacity.requestPolicy) } : {}),
  };
}

const canonical = (value: unknown): unknown =>
  typeof value === 'string' || typeof value === 'number' ? canonicalQuantity(String(value)) : value;

/**
 * A written or stored `DeviceCapacity` with the quantities of its request policy canonical, as the API server
 * gives them back (`1024Mi` → `1Gi`), so that comparing the two does not see a change; anything else as it is.
 */
export function canonicalRequestPolicy(capacity: unknown): unknown {
  const policy = (capacity as { requestPolicy?: unknown } | null)?.requestPolicy;
  if (typeof policy !== 'object' || policy === null) return capacity;
  const { default: byDefault, validRange, validValues, ...rest } = policy as Record<string, unknown>;
  const range = validRange as Record<string, unknown> | undefined;
  return {
    ...(capacity as object),
    requestPolicy: {
      ...rest,
      ...(byDefault !== undefined ? { default: canonical(byDefault) } : {}),
      ...(range !== undefined && range !== null
        ? { validRange: Object.fromEntries(Object.entries(range).map(([k, v]) => [k, canonical(v)])) }
        : {}),
      ...(Array.isArray(validValues) ? { validValues: validValues.map(canonical) } : {}),
    },
  };
}

/** The capacities of a device that carry a request policy: a `resource.k8s.io` version before v1 has none. */
export function capacitiesWithPolicy(device: unknown): string[] {
  const capacity = (device as { capacity?: unknown } | null)?.capacity;
  if (typeof capacity !== 'object' || capacity === null) return [];
  return Object.entries(capacity)
    .filter(([, cap]) => (cap as { requestPolicy?: unknown } | null)?.requestPolicy !== undefined)
    .map(([name]) => name);
}
