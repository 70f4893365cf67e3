import { functionProblem } from '../health/function-problem';
import { matchSelector } from './match-selector';
import { functionPath, type NicFunction, type NodeScan } from '../scan/nic-function';
import { poolResourceName, poolSelectors, type SriovConfig, type SriovPool } from '../config';

/** A function placed in a pool, with the health it has there. */
export interface PooledFunction {
  readonly fn: NicFunction;
  /** Index of the first selector object that matched (upstream uses it for isRdma / needVhostNet). */
  readonly selectorIndex: number;
  readonly healthy: boolean;
  /** Why it is unhealthy. */
  readonly problem?: string;
}

/** One pool of the configuration with the functions it got. */
export interface PoolAssignment {
  /** `<prefix>/<name>`. */
  readonly resourceName: string;
  readonly pool: SriovPool;
  readonly members: readonly PooledFunction[];
}

/** Every pool's members and every candidate that no pool took, with the reason. */
export interface Assignment {
  readonly pools: readonly PoolAssignment[];
  readonly excluded: readonly { readonly path: string; readonly reason: string }[];
}

/** Options of {@link assignPools}. */
export interface AssignPoolsOptions {
  readonly defaultPrefix: string;
  /**
   * Pool of each function in the previous assignment. A function that fails its pool's selectors only for
   * a transient reason (its driver was unbound, its netdev or RDMA device moved into a pod's namespace)
   * stays in that pool, marked unhealthy when the driver is missing, instead of vanishing from the kubelet.
   */
  readonly previous?: ReadonlyMap<string, string>;
}

/**
 * Places every candidate function into the first pool (in `resourceList` order) whose selectors it passes,
 * as upstream does; explains every other candidate, naming per pool the selector that failed.
 */
export function assignPools(scan: NodeScan, config: SriovConfig, options: AssignPoolsOptions): Assignment {
  const pools: { resourceName: string; pool: SriovPool; members: PooledFunction[] }[] = [];
  const seen = new Set<string>();
  for (const pool of config.resourceList) {
    const resourceName = poolResourceName(pool, options.defaultPrefix);
    if (seen.has(resourceName)) continue;
    seen.add(resourceName);
    pools.push({ resourceName, pool, members: [] });
  }
  const excluded: { path: string; reason: string }[] = [...scan.skipped];

  for (const fn of scan.functions) {
    const reasons: string[] = [];
    let placed = false;
    for (const entry of pools) {
      const { pool, resourceName } = entry;
      if (pool.deviceType !== fn.kind) continue;
      const selectors = poolSelectors(pool);
      let transientOnly = true;
      const failures: string[] = [];
      let matched = -1;
      for (let i = 0; i < selectors.length; i++) {
        const verdict = matchSelector(fn, selectors[i] ?? {}, pool.deviceType);
        if (verdict.ok) {
          matched = i;
          break;
        }
        transientOnly &&= verdict.transient;
        failures.push(selectors.length > 1 ? `selectors[${i}]: ${verdict.reason}` : verdict.reason);
      }
      const sticky = matched < 0 && transientOnly && options.previous?.get(fn.address) === resourceName;
      if (matched >= 0 || sticky) {
        entry.members.push(withHealth(fn, Math.max(matched, 0)));
        placed = true;
        break;
      }
      reasons.push(`${resourceName}: ${failures.join('; ')}`);
    }
    if (placed) continue;
    if (reasons.length === 0) {
      reasons.push(
        fn.kind === 'netDevice'
          ? 'no netDevice pool in the configuration (resourceList)'
          : 'no accelerator pool in the configuration (resourceList)',
      );
    }
    excluded.push({ path: functionPath(fn.address), reason: reasons.join(' | ') });
  }
  excluded.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { pools, excluded };
}

function withHealth(fn: NicFunction, selectorIndex: number): PooledFunction {
  const problem = functionProblem(fn);
  return problem === undefined
    ? { fn, selectorIndex, healthy: true }
    : { fn, selectorIndex, healthy: false, problem };
}

/** The pool of every member, for the next call's `previous`. */
export function poolIndex(assignment: Assignment): Map<string, string> {
  const index = new Map<string, string>();
  for (const pool of assignment.pools) {
    for (const member of pool.members) index.set(member.fn.address, pool.resourceName);
  }
  return index;
}
