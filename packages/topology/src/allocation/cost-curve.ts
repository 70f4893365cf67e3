/**
 * The cheapest choices of k devices below one node of the locality tree, for every k from `lo` to `hi`.
 *
 * A bucket is a set of interchangeable devices (one parent, every pair at one cost). In a cheapest choice at
 * most one bucket is partly taken (some but not all of its devices beyond its must-include ones): with two, moving
 * a device from one to the other lowers the cost one way or the other (the two moves' changes sum to minus the
 * cost drops along both buckets' paths, ≥ 0 per level), or keeps it. So a curve keeps two costs per k: `clean`
 * (every bucket at its must-include count or full) and `any` (at most one bucket partly taken); merging clean
 * curves touches only the counts a clean choice reaches, which are few when the buckets are alike.
 */
export interface CostCurve {
  /** The fewest devices a choice holds: the must-include ones. */
  readonly lo: number;
  /** The most devices a choice holds: all of them, or the cap. */
  readonly hi: number;
  /** clean[k]: least cost of k devices with every bucket at its must-include count or full; Infinity if none. */
  readonly clean: Float64Array;
  /** The k with a finite `clean[k]`, ascending. */
  readonly cleanAt: Int32Array;
  /** any[k]: least cost of k devices with at most one bucket partly taken (finite for lo ≤ k ≤ hi). */
  readonly any: Float64Array;
  /** The IDs of a choice of k devices costing `clean[k]` (`partial` false) or `any[k]` (true). */
  pick(k: number, partial: boolean): string[];
}

/** Interchangeable devices under one parent: every pair of them costs `pairCost`. */
export interface Bucket {
  readonly pairCost: number;
  /** Its must-include IDs. */
  readonly must: readonly string[];
  /** Its other IDs, in the order they are taken. */
  readonly rest: readonly string[];
}

const pairs = (n: number): number => (n < 2 ? 0 : (n * (n - 1)) / 2);

/**
 * The curve of `buckets` of one shape (same pairCost, must-include count and size) side by side under a parent
 * whose cross pairs cost `parentPairCost` (≥ the buckets' own): by majorization the cheapest way to take x
 * devices fills them one after the other, so the curve is closed-form. Earlier buckets fill first.
 */
export function bucketRunCurve(buckets: readonly Bucket[], parentPairCost: number, cap: number): CostCurve {
  const first = buckets[0];
  if (first === undefined) throw new Error('bucketRunCurve: no buckets');
  const count = buckets.length;
  const must = first.must.length;
  const size = must + first.rest.length;
  const width = size - must;
  const lo = count * must;
  if (lo > cap) throw new Error('bucketRunCurve: the must-include devices exceed the cap');
  const hi = Math.min(count * size, cap);
  const saved = parentPairCost - first.pairCost;
  const clean = new Float64Array(hi + 1).fill(Infinity);
  const any = new Float64Array(hi + 1).fill(Infinity);
  const cleanAt: number[] = [];
  for (let x = lo; x <= hi; x++) {
    const full = width === 0 ? count : Math.min(count, Math.floor((x - lo) / width));
    const partial = full === count ? 0 : x - lo - full * width;
    const inside =
      full * pairs(size) + (full < count ? pairs(must + partial) + (count - full - 1) * pairs(must) : 0);
    const cost = parentPairCost * pairs(x) - saved * inside;
    any[x] = cost;
    if (partial === 0) {
      clean[x] = cost;
      cleanAt.push(x);
    }
  }
  return {
    lo,
    hi,
    clean,
    cleanAt: Int32Array.from(cleanAt),
    any,
    pick: (x) => {
      const full = width === 0 ? count : Math.min(count, Math.floor((x - lo) / width));
      const ids: string[] = [];
      buckets.forEach((bucket, i) => {
        const extra = i < full ? width : i === full ? x - lo - full * width : 0;
        ids.push(...bucket.must, ...bucket.rest.slice(0, extra));
      });
      return ids;
    },
  };
}

/** Options of {@link mergeCurves}. */
export interface MergeOptions {
  /** Compute only the counts that can still add up to `target`: the result holds `target` alone. */
  readonly target?: number;
  /**
   * Take each child clean only at its must-include count or its largest clean count (full), so that at most one
   * child sits in between: exact when no cheapest choice has two children in between, and otherwise a choice
   * that is valid but may cost more. For sizes where the exact merge's work (`mergeWork`) is too large.
   */
  readonly coarse?: boolean;
}

/**
 * Merges sibling curves under a parent whose cross pairs cost `pairCost` each, up to `cap` devices. On equal
 * cost the earlier children give more, so the answer does not depend on anything but the children's order.
 */
export function mergeCurves(
  children: readonly CostCurve[],
  pairCost: number,
  cap: number,
  options: MergeOptions = {},
): CostCurve {
  const { target, coarse = false } = options;
  const { restLo, restHi } = rests(children);
  let lo = 0;
  let hi = 0;
  let clean = new Float64Array([0]);
  let cleanAt = new Int32Array([0]);
  let any = new Float64Array([0]);
  const steps: { cleanTake: Int32Array; anyTake: Int32Array; childPartial: Uint8Array }[] = [];
  children.forEach((child, i) => {
    let nextLo = lo + child.lo;
    let nextHi = Math.min(hi + child.hi, cap);
    if (target !== undefined) {
      nextLo = Math.max(nextLo, target - (restHi[i + 1] as number));
      nextHi = Math.min(nextHi, target - (restLo[i + 1] as number));
    }
    if (nextLo > nextHi) throw new Error('mergeCurves: no choice reaches the wanted count');
    const nextClean = new Float64Array(nextHi + 1).fill(Infinity);
    const nextAny = new Float64Array(nextHi + 1).fill(Infinity);
    const cleanTake = new Int32Array(nextHi + 1).fill(-1);
    const anyTake = new Int32Array(nextHi + 1).fill(-1);
    const childPartial = new Uint8Array(nextHi + 1);
    const childClean = child.clean;
    const childCleanAt = coarse ? ends(child.cleanAt) : child.cleanAt;
    const childAny = child.any;
    const withCleanChild = (j: number, base: number, into: Float64Array, take: Int32Array): void => {
      const cross = pairCost * j;
      for (let b = lowerBound(childCleanAt, nextLo - j); b < childCleanAt.length; b++) {
        const t = childCleanAt[b] as number;
        const k = j + t;
        if (k > nextHi) break;
        const value = base + (childClean[t] as number) + cross * t;
        if (value < (into[k] as number)) {
          into[k] = value;
          take[k] = t;
        }
      }
    };
    // Larger prefix counts first with a strict `<`: on ties the earlier children keep more.
    for (let a = cleanAt.length - 1; a >= 0; a--) {
      const j = cleanAt[a] as number;
      withCleanChild(j, clean[j] as number, nextClean, cleanTake);
    }
    // The prefix's choice with at most one partly taken bucket, this child clean.
    for (let j = hi; j >= lo; j--) {
      const base = any[j] as number;
      if (base < Infinity) withCleanChild(j, base, nextAny, anyTake);
    }
    // The one partly taken bucket inside this child; on equal cost and count the child's clean choice stays.
    for (let a = cleanAt.length - 1; a >= 0; a--) {
      const j = cleanAt[a] as number;
      const base = clean[j] as number;
      const cross = pairCost * j;
      const last = Math.min(child.hi, nextHi - j);
      for (let t = Math.max(child.lo, nextLo - j); t <= last; t++) {
        const k = j + t;
        const value = base + (childAny[t] as number) + cross * t;
        if (value < (nextAny[k] as number) || (value === nextAny[k] && t < (anyTake[k] as number))) {
          nextAny[k] = value;
          anyTake[k] = t;
          childPartial[k] = 1;
        }
      }
    }
    const at: number[] = [];
    for (let k = nextLo; k <= nextHi; k++) if ((nextClean[k] as number) < Infinity) at.push(k);
    lo = nextLo;
    hi = nextHi;
    clean = nextClean;
    cleanAt = Int32Array.from(at);
    any = nextAny;
    steps.push({ cleanTake, anyTake, childPartial });
  });
  return {
    lo,
    hi,
    clean,
    cleanAt,
    any,
    pick: (k, partial) => {
      const ids: string[] = [];
      let remaining = k;
      let open = partial;
      for (let i = children.length - 1; i >= 0; i--) {
        const step = steps[i] as (typeof steps)[number];
        const take = (open ? step.anyTake : step.cleanTake)[remaining] ?? -1;
        if (take < 0) throw new Error(`mergeCurves: ${k} devices are not feasible`);
        const childOpen = open && step.childPartial[remaining] === 1;
        ids.push(...(children[i] as CostCurve).pick(take, childOpen));
        if (childOpen) open = false;
        remaining -= take;
      }
      return ids;
    },
  };
}

/** The first index of ascending `values` holding a value ≥ `min`. */
function lowerBound(values: Int32Array, min: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((values[mid] as number) < min) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * An upper bound of the inner steps an exact `mergeCurves` takes (with `target` when given): per child, the
 * prefix's counts times the child's clean counts and width.
 */
export function mergeWork(children: readonly CostCurve[], cap: number, target?: number): number {
  const { restLo, restHi } = rests(children);
  let lo = 0;
  let hi = 0;
  let work = 0;
  children.forEach((child, i) => {
    work += (hi - lo + 1) * (child.cleanAt.length + child.hi - child.lo + 1);
    lo += child.lo;
    hi = Math.min(hi + child.hi, cap);
    if (target !== undefined) {
      lo = Math.max(lo, target - (restHi[i + 1] as number));
      hi = Math.min(hi, target - (restLo[i + 1] as number));
    }
  });
  return work;
}

/** The inner steps exact merges may still take in one call; a merge that would take more runs coarse. */
export interface MergeBudget {
  left: number;
}

/** Merges exactly while `budget` allows (and charges it), else coarse; see {@link MergeOptions}. */
export function mergeWithin(
  budget: MergeBudget,
  children: readonly CostCurve[],
  pairCost: number,
  cap: number,
  target?: number,
): CostCurve {
  const work = mergeWork(children, cap, target);
  const coarse = work > budget.left;
  if (!coarse) budget.left -= work;
  return mergeCurves(children, pairCost, cap, { ...(target !== undefined ? { target } : {}), coarse });
}

/** The devices the children after each index hold at least (restLo) and at most (restHi). */
function rests(children: readonly CostCurve[]): { restLo: Int32Array; restHi: Int32Array } {
  const restLo = new Int32Array(children.length + 1);
  const restHi = new Int32Array(children.length + 1);
  for (let i = children.length - 1; i >= 0; i--) {
    restLo[i] = (restLo[i + 1] as number) + (children[i] as CostCurve).lo;
    restHi[i] = (restHi[i + 1] as number) + (children[i] as CostCurve).hi;
  }
  return { restLo, restHi };
}

/** The first and last of ascending clean counts. */
function ends(cleanAt: Int32Array): Int32Array {
  return cleanAt.length <= 2
    ? cleanAt
    : Int32Array.of(cleanAt[0] as number, cleanAt[cleanAt.length - 1] as number);
}
