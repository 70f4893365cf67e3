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
  /** The records of every instance of the driver on this node: read again for every change. */
  readonly checkpoint: Checkpoint;
  readonly cdi: ClaimCdi;
  /** Told the records as last read or written (what `prepared()` answers). */
  readonly seen: (claims: ReadonlyMap<string, PreparedClaimRecord>) => void;
}

/** Whether two states hold the same records (by identity). */
export function sameState(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}
