import type { DeviceClass, ExactRequest, ResourceClaim, ResourceSlice, SliceDevice } from '../dra-types';
import type { Pool } from './pools';

/** A device the allocator may pick, with where it comes from. */
export interface Candidate {
  readonly id: string;
  readonly device: SliceDevice;
  readonly slice: ResourceSlice;
  readonly pool: Pool;
}

/** One request without subrequests, or one subrequest, ready for the search. */
export interface RequestData {
  /** The request's name in the claim. */
  readonly base: string;
  /** The subrequest's name, for a `firstAvailable` entry. */
  readonly sub?: string;
  readonly spec: ExactRequest;
  readonly class: DeviceClass;
  readonly numDevices: number;
  /** For allocationMode All: every matching device, fixed up front. */
  readonly allDevices?: readonly Candidate[];
}

/** The request's name as results carry it: `request` or `request/subrequest`. */
export const resultName = (r: RequestData): string => (r.sub === undefined ? r.base : `${r.base}/${r.sub}`);

/** `namespace/name` of a claim, as klog.KObj prints it. */
export const claimRef = (claim: ResourceClaim): string =>
  `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`.replace(/^\//, '');

/** The most results one claim's allocation may hold. */
export const allocationResultsMaxSize = 32;

/** An allocation error: aborts the whole allocation (not "does not fit"). */
export class AllocationError extends Error {}

/** Validates one (sub)request and resolves its class; for mode All, gathers its devices via `selectable`. */
export function requestData(
  claim: ResourceClaim,
  base: string,
  sub: string | undefined,
  spec: ExactRequest,
  classOf: (name: string) => DeviceClass | undefined,
  pools: readonly Pool[],
  selectable: (spec: ExactRequest, cls: DeviceClass, c: Candidate) => boolean,
): RequestData {
  const name = sub ?? base;
  const where = `claim ${claimRef(claim)}, request ${name}`;
  (spec.selectors ?? []).forEach((s, i) => {
    if (s.cel === undefined)
      throw new AllocationError(
        `${where}, selector #${i}: CEL expression empty (unsupported selector type?)`,
      );
  });
  if (spec.deviceClassName === '')
    throw new AllocationError(`${where}: missing device class name (unsupported request type?)`);
  const cls = classOf(spec.deviceClassName);
  if (cls === undefined)
    throw new AllocationError(
      `${where}: could not retrieve device class ${spec.deviceClassName}: deviceclass.resource.k8s.io "${spec.deviceClassName}" not found`,
    );
  const mode = spec.allocationMode ?? 'ExactCount';
  if (mode === 'ExactCount')
    return { base, ...(sub === undefined ? {} : { sub }), spec, class: cls, numDevices: spec.count ?? 1 };
  if (mode !== 'All') throw new AllocationError(`${where}: unsupported count mode ${String(mode)}`);
  const allDevices: Candidate[] = [];
  for (const pool of pools) {
    if (pool.incomplete)
      throw new AllocationError(
        `${where}: asks for all devices, but resource pool ${pool.driver}/${pool.name} is currently being updated`,
      );
    if (pool.invalid !== undefined)
      throw new AllocationError(
        `${where}: asks for all devices, but resource pool ${pool.driver}/${pool.name} is currently invalid`,
      );
    for (const slice of pool.slices) {
      for (const device of slice.spec.devices ?? []) {
        const c: Candidate = { id: `${pool.driver}/${pool.name}/${device.name}`, device, slice, pool };
        if (selectable(spec, cls, c)) allDevices.push(c);
      }
    }
  }
  return {
    base,
    ...(sub === undefined ? {} : { sub }),
    spec,
    class: cls,
    numDevices: allDevices.length,
    allDevices,
  };
}
