import type { ClaimRef } from './check-allocation';
import type { PreparedClaimRecord } from './checkpoint';
import type { DeviceRequestAllocationResult } from './resource-claim';

/** `namespace/name (uid)`, as messages name a claim. */
export function describeClaim(ref: ClaimRef): string {
  return `${ref.namespace}/${ref.name} (${ref.uid})`;
}

/** Throws when a field of the claim reference is empty. */
export function checkClaimRef(ref: ClaimRef): void {
  for (const field of ['namespace', 'name', 'uid'] as const)
    if (typeof ref[field] !== 'string' || ref[field] === '') throw new Error(`claim ${field} is empty`);
}

/** Throws when a UID comes back under another namespace or name than it was prepared as. */
export function checkSameClaim(ref: ClaimRef, record: PreparedClaimRecord): void {
  if (record.namespace !== ref.namespace || record.name !== ref.name)
    throw new Error(`claim UID ${ref.uid} was prepared as ${record.namespace}/${record.name}`);
}

/** Why `results` cannot be prepared: an exclusive device of them another claim of `state` holds; else undefined. */
export function findDeviceConflict(
  state: ReadonlyMap<string, PreparedClaimRecord>,
  uid: string,
  results: readonly DeviceRequestAllocationResult[],
): string | undefined {
  for (const result of results) {
    if (result.adminAccess === true || result.shareID !== undefined) continue;
    for (const other of state.values()) {
      if (other.uid === uid) continue;
      const held = other.results.find(
        (r) =>
          r.pool === result.pool &&
          r.device === result.device &&
          r.adminAccess !== true &&
          r.shareID === undefined,
      );
      if (held !== undefined)
        return `device ${result.pool}/${result.device} is already prepared for claim ${describeClaim(other)}`;
    }
  }
  return undefined;
}
