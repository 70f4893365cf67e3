import { addQuantity, formatQuantity, subQuantity, type Quantity } from '../cel/quantity';
import type { ResourceClaim } from '../dra-types';
import type { PickedDevice } from './allocation-result';
import type { AllocatedState } from './allocated-state';
import { capacityFits, consumedCapacity } from './consumable-capacity';
import type { CounterBook } from './counters';
import type { DeviceMatcher } from './device-match';
import { taintPreventsAllocation } from './device-taints';
import type { MatchAttribute } from './match-attribute';
import type { Pool } from './pools';
import {
  AllocationError,
  allocationResultsMaxSize,
  type Candidate,
  claimRef,
  type RequestData,
} from './request-data';

/** A claim's request: one (sub)request list; `chosen` is the subrequest the search settled on. */
export interface RequestEntry {
  readonly options: readonly RequestData[];
  readonly prioritized: boolean;
  chosen: number;
}

/** What the search works on. */
export interface SearchInput {
  readonly claims: readonly ResourceClaim[];
  readonly entries: readonly (readonly RequestEntry[])[];
  readonly constraints: readonly (readonly MatchAttribute[])[];
  readonly pools: readonly Pool[];
  readonly allocated: AllocatedState;
  readonly counters: CounterBook;
  readonly matches: DeviceMatcher;
  readonly newShareId: () => string;
}

interface Idx {
  readonly claim: number;
  readonly request: number;
  readonly sub: number;
  readonly device: number;
}
interface Loc {
  readonly pool: number;
  readonly slice: number;
  readonly device: number;
}
type Outcome = boolean | 'exceeded';
const origin: Loc = { pool: 0, slice: 0, device: 0 };

/** Upstream's backtracking search; fills `picked` per claim and returns whether every claim was satisfied. */
export function searchAllocation(input: SearchInput, picked: PickedDevice[][]): boolean {
  const { claims, entries, constraints, pools, allocated, counters, matches } = input;
  const allocating = new Map<string, Set<number>>();
  const allocatingCapacity = new Map<string, Map<string, Quantity>>();
  const inUse = (id: string): boolean => allocated.devices.has(id) || (allocating.get(id)?.size ?? 0) > 0;
  const forClaim = (id: string, claim: number): boolean => allocating.get(id)?.has(claim) ?? false;

  const addCapacity = (id: string, consumed: Map<string, Quantity>, sign: 1 | -1): void => {
    const have = allocatingCapacity.get(id) ?? new Map<string, Quantity>();
    for (const [name, q] of consumed) {
      const before = have.get(name);
      have.set(name, before === undefined ? q : sign === 1 ? addQuantity(before, q) : subQuantity(before, q));
    }
    allocatingCapacity.set(id, have);
  };

  /** Picks the device for `r`; returns the undo, or undefined when it cannot be picked. */
  const allocateDevice = (
    r: Idx,
    data: RequestData,
    c: Candidate,
    must: boolean,
  ): (() => void) | undefined => {
    const admin = data.spec.adminAccess === true;
    const multi = c.device.allowMultipleAllocations === true;
    if (!multi && admin && forClaim(c.id, r.claim)) return undefined;
    if (!admin && inUse(c.id)) return undefined;
    if (taintPreventsAllocation(c.device.taints, data.spec.tolerations)) return undefined;
    const requests = data.spec.capacity?.requests;
    if (!capacityFits(requests, c.device, allocated.capacity.get(c.id), allocatingCapacity.get(c.id)))
      return undefined;
    const skipCounters = multi && (allocated.capacity.has(c.id) || allocatingCapacity.has(c.id));
    const takesCounters = !skipCounters && (c.device.consumesCounters ?? []).length > 0;
    if (takesCounters && !counters.take(c.pool, c.device)) return undefined;
    const claimConstraints = constraints[r.claim] ?? [];
    for (const [i, constraint] of claimConstraints.entries()) {
      if (constraint.add(data.base, data.sub, c.pool.driver, c.device)) continue;
      if (must) {
        const claim = claims[r.claim] as ResourceClaim;
        throw new AllocationError(
          `claim ${claimRef(claim)}, request ${data.sub ?? data.base}: cannot add device ${c.id} because a claim constraint would not be satisfied`,
        );
      }
      for (const earlier of claimConstraints.slice(0, i)) earlier.remove(data.base, data.sub);
      if (takesCounters) counters.give(c.pool, c.device);
      return undefined;
    }
    const holders = allocating.get(c.id) ?? new Set<number>();
    allocating.set(c.id, holders);
    if (!multi) holders.add(r.claim);
    const consumed = multi ? consumedCapacity(requests, c.device) : undefined;
    if (consumed !== undefined) addCapacity(c.id, consumed, 1);
    const list = picked[r.claim] as PickedDevice[];
    list.push({
      request: data,
      candidate: c,
      ...(multi ? { shareID: input.newShareId() } : {}),
      ...(consumed !== undefined && consumed.size > 0
        ? { consumedCapacity: Object.fromEntries([...consumed].map(([n, q]) => [n, formatQuantity(q)])) }
        : {}),
    });
    return () => {
      for (const constraint of claimConstraints) constraint.remove(data.base, data.sub);
      holders.delete(r.claim);
      if (consumed !== undefined) addCapacity(c.id, consumed, -1);
      if (takesCounters) counters.give(c.pool, c.device);
      list.pop();
    };
  };

  const tryDevices = (r: Idx, data: RequestData, sub: boolean, start: Loc): Outcome => {
    const admin = data.spec.adminAccess === true;
    const claim = claims[r.claim] as ResourceClaim;
    for (let p = start.pool; p < pools.length; p++) {
      const pool = pools[p] as Pool;
      if (pool.incomplete || pool.invalid !== undefined) continue;
      for (let s = p === start.pool ? start.slice : 0; s < pool.slices.length; s++) {
        const slice = pool.slices[s];
        const devices = slice?.spec.devices ?? [];
        for (let d = p === start.pool && s === start.slice ? start.device : 0; d < devices.length; d++) {
          const device = devices[d];
          if (slice === undefined || device === undefined) continue;
          const c: Candidate = { id: `${pool.driver}/${pool.name}/${device.name}`, device, slice, pool };
          if (admin ? forClaim(c.id, r.claim) : inUse(c.id)) continue;
          const key = `${c.id}|${r.claim}|${r.request}|${r.sub}`;
          if (!matches(key, claim, data.class, data.spec.selectors ?? [], c)) continue;
          const undo = allocateDevice(r, data, c, false);
          if (undo === undefined) continue;
          const done = allocateOne({ ...r, device: r.device + 1 }, sub, { pool: p, slice: s, device: d + 1 });
          if (done === true) return true;
          undo();
          if (done === 'exceeded') return 'exceeded';
        }
      }
    }
    return false;
  };

  const allocateOne = (r: Idx, sub: boolean, start: Loc): Outcome => {
    if (r.claim >= claims.length) return true;
    const claimEntries = entries[r.claim] ?? [];
    if (r.request >= claimEntries.length) {
      const next = allocateOne({ claim: r.claim + 1, request: 0, sub: 0, device: 0 }, false, origin);
      return next === 'exceeded' ? false : next;
    }
    const entry = claimEntries[r.request] as RequestEntry;
    if (!sub && entry.prioritized) {
      let allExceeded = true;
      for (let s = 0; s < entry.options.length; s++) {
        const done = allocateOne({ ...r, sub: s }, true, origin);
        if (done === 'exceeded') continue;
        allExceeded = false;
        if (done) {
          entry.chosen = s;
          return true;
        }
      }
      return allExceeded ? 'exceeded' : false;
    }
    const data = entry.options[r.sub] as RequestData;
    if (data.allDevices !== undefined && data.allDevices.length === 0) return false;
    if (r.device >= data.numDevices)
      return allocateOne({ claim: r.claim, request: r.request + 1, sub: 0, device: 0 }, false, origin);
    if ((picked[r.claim]?.length ?? 0) + data.numDevices - r.device > allocationResultsMaxSize)
      return 'exceeded';
    if (data.allDevices === undefined) return tryDevices(r, data, sub, start);
    const undo = allocateDevice(r, data, data.allDevices[r.device] as Candidate, true);
    if (undo === undefined) return false;
    const done = allocateOne({ ...r, device: r.device + 1 }, sub, origin);
    if (done !== true) undo();
    return done;
  };

  return allocateOne({ claim: 0, request: 0, sub: 0, device: 0 }, false, origin) === true;
}
