import { compareStrings } from './compare-strings';
import { type Bucket, bucketRunCurve, type CostCurve, type MergeBudget, mergeWithin } from './cost-curve';
import { localityRankCost } from './locality-rank';

/** A device of one NUMA affinity group, as the locality curve takes it. */
export interface GroupDevice {
  readonly id: string;
  readonly pciePath: readonly string[];
  readonly mustInclude: boolean;
}

/**
 * The cost curve of one NUMA affinity group, up to `cap` devices: the group (pairs cost `groupPairCost`) →
 * root ports (2) → second bridges (1: every pair below one costs the same). Devices on the group or a root port
 * itself form one bucket there; neighbouring buckets of one shape are solved together in closed form, and a
 * node with one child is that child. Work grows with the buckets and the counts their fills reach, not with
 * device pairs; a merge beyond what is left of `budget` runs coarse.
 */
export function localityCurve(
  devices: readonly GroupDevice[],
  groupPairCost: number,
  cap: number,
  budget: MergeBudget,
): CostCurve {
  const direct: GroupDevice[] = [];
  const byPort = new Map<string, GroupDevice[]>();
  for (const device of devices) {
    const port = device.pciePath[0];
    if (port === undefined) direct.push(device);
    else pushTo(byPort, port, device);
  }
  const children: (Bucket | CostCurve)[] = [];
  if (direct.length > 0) children.push(bucketOf(direct, groupPairCost));
  for (const port of [...byPort.keys()].sort(compareStrings)) {
    const onPort: GroupDevice[] = [];
    const bySecond = new Map<string, GroupDevice[]>();
    for (const device of byPort.get(port) as GroupDevice[]) {
      const second = device.pciePath[1];
      if (second === undefined) onPort.push(device);
      else pushTo(bySecond, second, device);
    }
    const portChildren: Bucket[] = [];
    if (onPort.length > 0) portChildren.push(bucketOf(onPort, localityRankCost['same-root-port']));
    for (const second of [...bySecond.keys()].sort(compareStrings)) {
      portChildren.push(bucketOf(bySecond.get(second) as GroupDevice[], localityRankCost['same-switch']));
    }
    children.push(solveLevel(portChildren, localityRankCost['same-root-port'], cap, budget));
  }
  const solved = solveLevel(children, groupPairCost, cap, budget);
  return isBucket(solved) ? bucketRunCurve([solved], groupPairCost, cap) : solved;
}

/**
 * One node: neighbouring buckets of one shape become one run (the order of the children stays), then the children
 * merge; a single child stands for the node.
 */
function solveLevel(
  children: readonly (Bucket | CostCurve)[],
  pairCost: number,
  cap: number,
  budget: MergeBudget,
): Bucket | CostCurve {
  if (children.length === 1) return children[0] as Bucket | CostCurve;
  const curves: CostCurve[] = [];
  let run: Bucket[] = [];
  const closeRun = (): void => {
    if (run.length > 0) curves.push(bucketRunCurve(run, pairCost, cap));
    run = [];
  };
  for (const child of children) {
    if (!isBucket(child)) {
      closeRun();
      curves.push(child);
    } else {
      const last = run[run.length - 1];
      if (last !== undefined && shapeOf(last) !== shapeOf(child)) closeRun();
      run.push(child);
    }
  }
  closeRun();
  return curves.length === 1 ? (curves[0] as CostCurve) : mergeWithin(budget, curves, pairCost, cap);
}

/** Buckets of one shape have one curve: pair cost (moot for a single device), must-include count, size. */
function shapeOf(bucket: Bucket): string {
  const size = bucket.must.length + bucket.rest.length;
  return `${size > 1 ? bucket.pairCost : 0}/${bucket.must.length}/${size}`;
}

/**
 * A bucket of `devices`, taken in the order the locality tree's depth-first walk meets them (a device that ends
 * at a bridge before the ones below it, then by bridge address, then by ID).
 */
function bucketOf(devices: readonly GroupDevice[], pairCost: number): Bucket {
  const sorted = [...devices].sort(compareWalk);
  return {
    pairCost,
    must: sorted.filter((d) => d.mustInclude).map((d) => d.id),
    rest: sorted.filter((d) => !d.mustInclude).map((d) => d.id),
  };
}

function compareWalk(a: GroupDevice, b: GroupDevice): number {
  for (let i = 0; ; i++) {
    const hopA = a.pciePath[i];
    const hopB = b.pciePath[i];
    if (hopA === undefined || hopB === undefined) {
      if (hopA === undefined && hopB === undefined) return compareStrings(a.id, b.id);
      return hopA === undefined ? -1 : 1;
    }
    if (hopA !== hopB) return compareStrings(hopA, hopB);
  }
}

function isBucket(item: Bucket | CostCurve): item is Bucket {
  return 'rest' in item;
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
