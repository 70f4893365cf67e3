import { contentText, type DesiredPool, type SliceContent } from './desired-pools';
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
 * Plans one pool's writes. Stored slices are matched to the desired ones by the slice their first device (or counter set)
 * belongs in (newest generation first, then by name, so the match is the same every time); the rest fill the desired
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
    !sameContent(slice, want.texts[i], want.slices[i]) ||
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

/** Whether two lists hold the same entries by {@link deviceKey}. */
const sameEntries = (stored: readonly unknown[], want: readonly unknown[]): boolean =>
  stored.length === want.length && stored.every((d, j) => deviceKey(d) === deviceKey(want[j]));

/**
 * Whether a stored slice holds the devices and counter sets wanted (`text` is their {@link contentText}, as
 * written). An API server gives back what it was sent, so the texts are compared first, once per slice object (the
 * cache holds each answer as one object, never changed); only a slice whose text differs is compared entry by
 * entry ({@link deviceKey}: key order, empty fields and the spelling of quantities do not count).
 */
function sameContent(slice: SliceObject, text: string | undefined, want: SliceContent | undefined): boolean {
  let stored = textOfStored.get(slice);
  if (stored === undefined) {
    stored = contentText(slice.spec as { devices?: unknown[]; sharedCounters?: unknown });
    textOfStored.set(slice, stored);
  }
  if (stored === text) return true;
  const counters = slice.spec['sharedCounters'];
  return (
    sameEntries(slice.spec.devices ?? [], want?.devices ?? []) &&
    sameEntries(Array.isArray(counters) ? counters : [], want?.sharedCounters ?? [])
  );
}

/** The name a slice is matched by: its first device's, or `counters/` and its first counter set's. */
function firstName(spec: {
  readonly devices?: readonly unknown[];
  readonly sharedCounters?: unknown;
}): string | undefined {
  const device = spec.devices?.[0] as { name?: unknown } | undefined;
  if (device !== undefined) return String(device.name);
  const set = (Array.isArray(spec.sharedCounters) ? spec.sharedCounters[0] : undefined) as
    { name?: unknown } | undefined;
  return set === undefined ? undefined : `counters/${String(set.name)}`;
}

/** Pairs stored slices with desired ones: by first device, then the rest in order; what is left is obsolete. */
function matchSlices(
  existing: readonly SliceObject[],
  want: DesiredPool,
): { matched: Map<number, SliceObject>; obsolete: SliceObject[] } {
  const indexOf = new Map<string, number>();
  want.slices.forEach((content, i) => {
    for (const d of content.devices ?? []) indexOf.set(d.name, i);
    for (const set of content.sharedCounters ?? []) indexOf.set(`counters/${set.name}`, i);
  });
  const candidates = [...existing].sort(
    (a, b) =>
      (b.spec.pool?.generation ?? 0) - (a.spec.pool?.generation ?? 0) ||
      (a.metadata.name < b.metadata.name ? -1 : 1),
  );
  const matched = new Map<number, SliceObject>();
  const unmatched: SliceObject[] = [];
  for (const slice of candidates) {
    const first = firstName(slice.spec as { devices?: unknown[]; sharedCounters?: unknown });
    const index = first === undefined ? undefined : indexOf.get(first);
    if (index === undefined || matched.has(index)) unmatched.push(slice);
    else matched.set(index, slice);
  }
  for (let i = 0; i < want.slices.length && unmatched.length > 0; i++)
    if (!matched.has(i)) matched.set(i, unmatched.shift() as SliceObject);
  return { matched, obsolete: unmatched };
}
