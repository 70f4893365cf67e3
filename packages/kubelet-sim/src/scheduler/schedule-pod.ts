import type { CompileResult } from './cel/device-selector-compiler';
import { allocatedStateOf, deviceId } from './allocator/allocated-state';
import { allocateClaims } from './allocator/allocator';
import type { AllocationResult, DeviceClass, ResourceClaim, ResourceSlice } from './dra-types';
import { fitErrorMessage, nodeFilterReason } from './node-filter';
import { nodeMatchesSelector } from './node-selector';
import type { PodClaims } from './pod-claims';
import type { Node, Pod } from './pod-types';

/** What one scheduling attempt of a pod decided. */
export type Attempt =
  | {
      readonly kind: 'scheduled';
      readonly node: string;
      /** The pod's claims, with the allocation the scheduler made for those that had none. */
      readonly claims: readonly { readonly claim: ResourceClaim; readonly allocation?: AllocationResult }[];
    }
  /** No node fits: the PodScheduled=False message; `deallocate` a claim PostFilter gives up. */
  | { readonly kind: 'unschedulable'; readonly message: string; readonly deallocate?: ResourceClaim }
  /** Scheduling failed with an error (reason SchedulerError). */
  | { readonly kind: 'error'; readonly message: string };

/** The cluster as one attempt sees it. */
export interface AttemptInput {
  readonly pod: Pod;
  readonly claims: PodClaims;
  readonly nodes: readonly Node[];
  readonly allClaims: readonly ResourceClaim[];
  readonly slices: readonly ResourceSlice[];
  readonly classOf: (name: string) => DeviceClass | undefined;
  readonly compile: (expression: string) => CompileResult;
}

/** Devices allocated on each node (of node-local slices), to prefer emptier nodes. */
function devicesInUsePerNode(input: AttemptInput): Map<string, number> {
  const state = allocatedStateOf(input.allClaims);
  const counts = new Map<string, number>();
  for (const slice of input.slices) {
    const node = slice.spec.nodeName;
    if (node === undefined) continue;
    for (const device of slice.spec.devices ?? []) {
      const id = deviceId(slice.spec.driver, slice.spec.pool.name, device.name);
      if (state.devices.has(id) || state.shared.has(id)) counts.set(node, (counts.get(node) ?? 0) + 1);
    }
  }
  return counts;
}

function postFilter(input: AttemptInput, claims: readonly ResourceClaim[], unavailable: ReadonlySet<number>) {
  if ((input.pod.spec.resourceClaims ?? []).length === 0) return { message: undefined };
  const candidate = [...unavailable]
    .sort((a, b) => a - b)
    .map((i) => claims[i] as ResourceClaim)
    .find((claim) => {
      const reserved = claim.status?.reservedFor ?? [];
      return reserved.length === 0 || (reserved.length === 1 && reserved[0]?.uid === input.pod.metadata.uid);
    });
  if (candidate !== undefined)
    return { message: 'deallocation of ResourceClaim completed', deallocate: candidate };
  return { message: 'still not schedulable' };
}

/**
 * One scheduling attempt, as kube-scheduler's cycle with the DynamicResources plugin: PreFilter (the pod's
 * claims), Filter per node (node plugins, then allocated claims' node selectors and the allocator), the node
 * with the fewest devices in use (ties by name), PostFilter and the FitError message when none fits.
 */
export function attemptPod(input: AttemptInput): Attempt {
  const nodes = [...input.nodes].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  if (nodes.length === 0) return { kind: 'error', message: 'no nodes available to schedule pods' };
  if (!input.claims.ok)
    return {
      kind: 'unschedulable',
      message: fitErrorMessage(
        nodes.length,
        { preFilter: input.claims.message },
        'no new claims to deallocate',
      ),
    };
  const claims = input.claims.claims;
  const toAllocate = claims.filter((c) => c.status?.allocation === undefined);
  const allocated = allocatedStateOf(input.allClaims);
  const reasons: string[] = [];
  const unavailable = new Set<number>();
  const fits: { node: string; allocations: AllocationResult[] }[] = [];
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    const reason = nodeFilterReason(input.pod, node);
    if (reason !== undefined) {
      reasons.push(reason);
      continue;
    }
    const notHere = claims
      .map((c, i) => [c, i] as const)
      .filter(
        ([c]) =>
          c.status?.allocation?.nodeSelector !== undefined &&
          !nodeMatchesSelector(node, c.status.allocation.nodeSelector),
      );
    let allocations: AllocationResult[] = [];
    if (toAllocate.length > 0) {
      const outcome = allocateClaims({
        node,
        claims: toAllocate,
        classOf: input.classOf,
        slices: input.slices,
        allocated,
        compile: input.compile,
      });
      if (outcome.kind === 'error')
        return { kind: 'error', message: `running "DynamicResources" filter plugin: ${outcome.message}` };
      if (outcome.kind === 'unschedulable') {
        reasons.push(outcome.reason);
        continue;
      }
      allocations = outcome.allocations;
    }
    if (notHere.length > 0) {
      for (const [, i] of notHere) unavailable.add(i);
      reasons.push('resourceclaim not available on the node');
      continue;
    }
    fits.push({ node: name, allocations });
  }
  if (fits.length === 0) {
    const post = postFilter(input, claims, unavailable);
    return {
      kind: 'unschedulable',
      message: fitErrorMessage(nodes.length, { reasons }, post.message),
      ...(post.deallocate === undefined ? {} : { deallocate: post.deallocate }),
    };
  }
  const inUse = devicesInUsePerNode(input);
  const best = fits.reduce((a, b) => ((inUse.get(b.node) ?? 0) < (inUse.get(a.node) ?? 0) ? b : a));
  let next = 0;
  return {
    kind: 'scheduled',
    node: best.node,
    claims: claims.map((claim) => {
      if (claim.status?.allocation !== undefined) return { claim };
      const allocation = best.allocations[next++] as AllocationResult;
      return { claim, allocation };
    }),
  };
}
