import { allocatedStateOf } from '../allocator/allocated-state';
import { type AllocateOutcome, allocateClaims } from '../allocator/allocator';
import { createDeviceSelectorCompiler } from '../cel/device-selector-compiler';
import type { AllocationResult, DeviceClass, ResourceClaim, ResourceSlice } from '../dra-types';
import { fixtureClass, fixtureNode } from './dra-fixtures';

const compiler = createDeviceSelectorCompiler();
const node = fixtureNode('node-a', { zone: 'z1' });
const gpuClass = fixtureClass('gpu');

/** Runs the allocator on `node-a` (zone z1) with the `gpu` class unless others are given; share IDs count up. */
export function allocate(
  claims: ResourceClaim[],
  slices: ResourceSlice[],
  options: { classes?: DeviceClass[]; allocated?: ResourceClaim[] } = {},
): AllocateOutcome {
  const classes = new Map((options.classes ?? [gpuClass]).map((c) => [c.metadata.name ?? '', c]));
  let share = 0;
  return allocateClaims({
    node,
    claims,
    classOf: (name) => classes.get(name),
    slices,
    allocated: allocatedStateOf(options.allocated ?? []),
    compile: (e) => compiler.compile(e),
    newShareId: () => `share-${++share}`,
  });
}

/** The first claim's allocation; throws when there is none. */
export const allocationOf = (outcome: AllocateOutcome): AllocationResult => {
  if (outcome.kind !== 'allocated' || outcome.allocations[0] === undefined)
    throw new Error(JSON.stringify(outcome));
  return outcome.allocations[0];
};

/** `request:device` of a claim's results; throws when nothing was allocated. */
export const devicesOf = (outcome: AllocateOutcome, claim = 0): string[] => {
  if (outcome.kind !== 'allocated') throw new Error(JSON.stringify(outcome));
  return (outcome.allocations[claim]?.devices.results ?? []).map((r) => `${r.request}:${r.device}`);
};

/** The outcome when the claims do not fit. */
export const cannot = { kind: 'unschedulable', reason: 'cannot allocate all claims' } as const;
