import type { NodeIdentity } from './check-allocation';
import type { Checkpoint, PreparedClaimRecord } from './checkpoint';
import type { ClaimCdi } from './claim-cdi';
import type { ClaimReader } from './claim-reader';
import type { DraDriver } from './dra-driver';

/** What a prepare or unprepare call works with. */
export interface ClaimBatchContext {
  readonly driverName: string;
  /** This node, to check allocations against. */
  readonly node: NodeIdentity;
  readonly driver: DraDriver;
  readonly claims: ClaimReader;
  readonly checkpoint: Checkpoint;
  readonly cdi: ClaimCdi;
  /** The claims prepared or being prepared, by UID; a call changes it in place. */
  readonly state: Map<string, PreparedClaimRecord>;
}

/** Whether two states hold the same records (by identity). */
export function sameState(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}
