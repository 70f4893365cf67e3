import { randomUUID } from 'node:crypto';
import type { CompileResult } from '../cel/device-selector-compiler';
import type { AllocationResult, DeviceClass, NodeInfo, ResourceClaim, ResourceSlice } from '../dra-types';
import { allocationResult, type PickedDevice } from './allocation-result';
import type { AllocatedState } from './allocated-state';
import { capacityFits } from './consumable-capacity';
import { createCounterBook } from './counters';
import { createDeviceMatcher } from './device-match';
import { createMatchAttribute, type MatchAttribute } from './match-attribute';
import { gatherPools, type Pool } from './pools';
import { AllocationError, allocationResultsMaxSize, claimRef, requestData } from './request-data';
import { type RequestEntry, searchAllocation } from './search';

/** What {@link allocateClaims} needs: one node, the claims to allocate and the cluster's DRA objects. */
export interface AllocateInput {
  readonly node: NodeInfo;
  readonly claims: readonly ResourceClaim[];
  readonly classOf: (name: string) => DeviceClass | undefined;
  /** Every ResourceSlice of the cluster (pool completeness is judged over all of them). */
  readonly slices: readonly ResourceSlice[];
  /** Devices, shared capacity and (through them) counters other claims hold. */
  readonly allocated: AllocatedState;
  /** Compiles a selector (the caller caches). */
  readonly compile: (expression: string) => CompileResult;
  /** Share IDs for devices with `allowMultipleAllocations` (default: random UUIDs). */
  readonly newShareId?: () => string;
}

/** The allocator's answer for one node. */
export type AllocateOutcome =
  | { readonly kind: 'allocated'; readonly allocations: AllocationResult[] }
  /** Does not fit this node; `reason` as the scheduler words it ("cannot allocate all claims"). */
  | { readonly kind: 'unschedulable'; readonly reason: string }
  /** Something is wrong with a claim or class (CEL error, missing class): upstream aborts the attempt. */
  | { readonly kind: 'error'; readonly message: string };

function entriesOf(input: AllocateInput, pools: readonly Pool[], claim: ResourceClaim): RequestEntry[] {
  const matches = createDeviceMatcher(input.node, input.compile);
  return (claim.spec.devices?.requests ?? []).map((request) => {
    const prioritized = (request.firstAvailable ?? []).length > 0;
    const specs = prioritized
      ? (request.firstAvailable ?? []).map((s) => ({ sub: s.name as string | undefined, spec: s }))
      : [{ sub: undefined, spec: request.exactly ?? { deviceClassName: '' } }];
    const options = specs.map(({ sub, spec }) =>
      requestData(
        claim,
        request.name,
        sub,
        spec,
        input.classOf,
        pools,
        (s, cls, c) =>
          matches(`all|${c.id}|${request.name}|${sub ?? ''}`, claim, cls, s.selectors ?? [], c) &&
          capacityFits(s.capacity?.requests, c.device, input.allocated.capacity.get(c.id), undefined),
      ),
    );
    return { options, prioritized, chosen: 0 };
  });
}

function constraintsOf(claim: ResourceClaim): MatchAttribute[] {
  return (claim.spec.devices?.constraints ?? []).map((c, i) => {
    if (c.matchAttribute === undefined)
      throw new AllocationError(
        `claim ${claimRef(claim)}, constraint #${i}: empty constraint (unsupported constraint type?)`,
      );
    return createMatchAttribute(c.matchAttribute, c.requests ?? []);
  });
}

/**
 * Allocates devices on `node` for all `claims` at once, as kube-scheduler's structured allocator: complete pools
 * of the node, class and request selectors in CEL, ExactCount/All, firstAvailable, matchAttribute, admin
 * access, device taints, shared counters and consumable capacity, by backtracking in pool, slice and device
 * order. Pure: reads its input, writes nothing.
 */
export function allocateClaims(input: AllocateInput): AllocateOutcome {
  const pools = gatherPools(input.node, input.slices);
  try {
    const entries = input.claims.map((claim) => {
      const claimEntries = entriesOf(input, pools, claim);
      const min = claimEntries.reduce((sum, e) => sum + Math.min(...e.options.map((o) => o.numDevices)), 0);
      if (min > allocationResultsMaxSize)
        throw new AllocationError(
          `claim ${claimRef(claim)}: number of requested devices ${min} exceeds the claim limit of ${allocationResultsMaxSize}`,
        );
      return claimEntries;
    });
    const picked: PickedDevice[][] = input.claims.map(() => []);
    const found = searchAllocation(
      {
        claims: input.claims,
        entries,
        constraints: input.claims.map(constraintsOf),
        pools,
        allocated: input.allocated,
        counters: createCounterBook(input.allocated),
        matches: createDeviceMatcher(input.node, input.compile),
        newShareId: input.newShareId ?? randomUUID,
      },
      picked,
    );
    if (!found) {
      const invalid = pools.some((p) => p.invalid !== undefined);
      return {
        kind: 'unschedulable',
        reason: invalid ? 'invalid resource pools were encountered' : 'cannot allocate all claims',
      };
    }
    const allocations = input.claims.map((claim, i) =>
      allocationResult(
        claim,
        picked[i] ?? [],
        (entries[i] ?? []).map((e) => e.options[e.chosen] as (typeof e.options)[number]),
        input.node.metadata.name ?? '',
      ),
    );
    return { kind: 'allocated', allocations };
  } catch (err) {
    if (err instanceof AllocationError) return { kind: 'error', message: err.message };
    throw err;
  }
}
