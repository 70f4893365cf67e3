import { addQuantity, parseQuantity, type Quantity } from '../cel/quantity';
import type { ResourceClaim } from '../dra-types';

/** What other claims already hold: the allocator's view of the cluster. */
export interface AllocatedState {
  /** Devices allocated exclusively (admin-access results excluded, as upstream). */
  readonly devices: ReadonlySet<string>;
  /** Devices with shared allocations (`shareID`). */
  readonly shared: ReadonlySet<string>;
  /** Capacity consumed on shared devices, per device and capacity name. */
  readonly capacity: ReadonlyMap<string, ReadonlyMap<string, Quantity>>;
}

/** The key of a device: driver, pool and device name. */
export const deviceId = (driver: string, pool: string, device: string): string =>
  `${driver}/${pool}/${device}`;

/** Whether a device counts as allocated (its counters consumed). */
export const isAllocated = (state: AllocatedState, id: string): boolean =>
  state.devices.has(id) || state.shared.has(id) || state.capacity.has(id);

/** The allocated state of the given claims' allocations. */
export function allocatedStateOf(claims: readonly ResourceClaim[]): AllocatedState {
  const devices = new Set<string>();
  const shared = new Set<string>();
  const capacity = new Map<string, Map<string, Quantity>>();
  for (const claim of claims) {
    for (const result of claim.status?.allocation?.devices.results ?? []) {
      if (result.adminAccess === true) continue;
      const id = deviceId(result.driver, result.pool, result.device);
      if (result.shareID === undefined) {
        devices.add(id);
        continue;
      }
      shared.add(id);
      const consumed = capacity.get(id) ?? new Map<string, Quantity>();
      for (const [name, value] of Object.entries(result.consumedCapacity ?? {})) {
        const before = consumed.get(name);
        const q = parseQuantity(value);
        consumed.set(name, before === undefined ? q : addQuantity(before, q));
      }
      capacity.set(id, consumed);
    }
  }
  return { devices, shared, capacity };
}
