import type { DesiredPool } from './desired-pools';
import { deviceKey } from './pool-slices';
import type { SliceObject } from './slice-object';

/** What {@link planPool} compares. */
export interface PoolPlanInput {
  /** The pool's slices the API server holds. */
  readonly existing: readonly SliceObject[];
  readonly want: DesiredPool;
  /** The highest generation written for the pool so far (0: none). */
  readonly lastGeneration: number;
  /** The Node's UID, which every slice must name as its owner. */
  readonly nodeUid: string | undefined;
  /** One changed slice is updated in place, its generation kept. */
  readonly keepGenerationForSingleUpdate: boolean;
}

/** The writes that make a pool's stored slices the desired ones. */
export interface PoolPlan {
  /** The generation every slice of the pool gets. */
  readonly generation: number;
  /** The stored slices reused, by the index of the desired slice each becomes. */
  readonly matched: ReadonlyMap<number, SliceObject>;
  /** The stored slices with no place in the pool: deleted first. */
  readonly obsolete: readonly SliceObject[];
  /** The desired slices (by index, ascending) written over their matched slice. */
  readonly toUpdate: readonly number[];
  /** The desired slices (by index, ascending) created. */
  readonly toCreate: readonly number[];
  /** True when the stored slices are the desired ones already: nothing to write. */
  readonly upToDate: boolean;
}

/**
 * Plans one pool's writes. Stored slices are matched to the desired ones by the slice their first device belongs
 * in (newest generation first, then by name, so the match is the same every time); the rest fill the desired
 * slices left over, as an update is cheaper than a delete and a create. Any change bumps the generation and
 * rewrites every slice, unless `keepGenerationForSingleUpdate` and only one slice's content changed.
 */
export function planPool(input: PoolPlanInput): PoolPlan {
  const { existing, want, nodeUid } = input;
  const count = want.slices.length;
  let generation = input.lastGeneration;
  for (const slice of existing) generation = Math.max(generation, slice.spec.pool?.generation ?? 0);

  const { matched, obsolete } = matchSlices(existing, want);
  const differs = (i: number, slice: SliceObject): boolean =>
    !sameDevices(slice, want.texts[i], want.slices[i] ?? []) ||
    slice.spec.pool?.resourceSliceCount !== count ||
    !(slice.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node' && o.uid === nodeUid);
  const changed = [...matched].filter(([i, slice]) => differs(i, slice)).map(([i]) => i);
  const stale = [...matched]
    .filter(([, slice]) => slice.spec.pool?.generation !== generation)
    .map(([i]) => i);
  const complete = obsolete.length === 0 && matched.size === count && stale.length === 0;
  const toCreate = [...Array(count).keys()].filter((i) => !matched.has(i));
  if (complete && changed.length === 0)
    return { generation, matched, obsolete, toUpdate: [], toCreate, upToDate: true };
  const single = input.keepGenerationForSingleUpdate && generation > 0 && complete && changed.length === 1;
  const toUpdate = (single ? changed : [...matched.keys()]).sort((a, b) => a - b);
  return {
    generation: single ? generation : generation + 1,
    matched,
    obsolete,
    toUpdate,
    toCreate,
    upToDate: false,
  };
}

const textOfStored = new WeakMap<SliceObject, string>();

/**
 * Whether a stored slice holds the devices wanted (`text` is their JSON text, as written). An API server gives
 * back what it was sent, so the texts are compared first, once per slice object (the cache holds each answer as
 * one object, never changed); only a slice whose text differs is compared device by device ({@link deviceKey}:
 * key order, empty fields and the spelling of quantities do not count).
 */
function sameDevices(slice: SliceObject, text: string | undefined, want: readonly unknown[]): boolean {
  const devices = slice.spec.devices ?? [];
  let stored = textOfStored.get(slice);
  if (stored === undefined) {
    stored = JSON.stringify(devices);
    textOfStored.set(slice, stored);
  }
  if (stored === text) return true;
  return devices.length === want.length && devices.every((d, j) => deviceKey(d) === deviceKey(want[j]));
}

/** Pairs stored slices with desired ones: by first device, then the rest in order; what is left is obsolete. */
function matchSlices(
  existing: readonly SliceObject[],
  want: DesiredPool,
): { matched: Map<number, SliceObject>; obsolete: SliceObject[] } {
  const indexOf = new Map<string, number>();
  want.slices.forEach((devices, i) => devices.forEach((d) => indexOf.set(d.name, i)));
  const candidates = [...existing].sort(
    (a, b) =>
      (b.spec.pool?.generation ?? 0) - (a.spec.pool?.generation ?? 0) ||
      (a.metadata.name < b.metadata.name ? -1 : 1),
  );
  const matched = new Map<number, SliceObject>();
  const unmatched: SliceObject[] = [];
  for (const slice of candidates) {
    const first = slice.spec.devices?.[0] as { name?: unknown } | undefined;
    const index = first === undefined ? undefined : indexOf.get(String(first.name));
    if (index === undefined || matched.has(index)) unmatched.push(slice);
    else matched.set(index, slice);
  }
  for (let i = 0; i < want.slices.length && unmatched.length > 0; i++)
    if (!matched.has(i)) matched.set(i, unmatched.shift() as SliceObject);
  return { matched, obsolete: unmatched };
}
