import type { ClaimRef, NodeIdentity } from './check-allocation';
import type { Checkpoint, PreparedClaimRecord } from './checkpoint';
import type { ClaimBatchContext } from './claim-batch-context';
import { createClaimCdi, type ClaimCdiOptions } from './claim-cdi';
import type { ClaimReader } from './claim-reader';
import type { DraDriver } from './dra-driver';
import { prepareClaims, type ClaimOutcome } from './prepare-claims';
import { unprepareClaims } from './unprepare-claims';

export type { ClaimCdiOptions } from './claim-cdi';
export type { DraDriver, PreparedDevice, PrepareInput, PrepareOutput, UnprepareInput } from './dra-driver';
export type { ClaimOutcome } from './prepare-claims';

/** Options for {@link createClaimPreparer}. */
export interface ClaimPreparerOptions extends NodeIdentity {
  readonly driverName: string;
  readonly driver: DraDriver;
  readonly claims: ClaimReader;
  readonly checkpoint: Checkpoint;
  readonly cdi: ClaimCdiOptions;
}

/** Prepares and unprepares claims one call at a time, with the kubelet's rules. */
export interface ClaimPreparer {
  /** Loads the checkpoint (corrupt file moved aside, another boot's records discarded); call once at start. */
  load(): ReturnType<Checkpoint['load']>;
  /** Answers every claim (by UID), each with its devices or its own error; never rejects for one claim. */
  prepare(claims: readonly ClaimRef[]): Promise<Map<string, ClaimOutcome>>;
  /** Answers every claim (by UID) with '' or its error; an unknown claim succeeds. */
  unprepare(claims: readonly ClaimRef[]): Promise<Map<string, string>>;
  /** The claims prepared or being prepared (by any instance), by UID, as the checkpoint last said. */
  prepared(): ReadonlyMap<string, PreparedClaimRecord>;
}

/**
 * Creates the claim preparer: calls run one at a time (a second waits for the first); prepare of a checkpointed
 * claim returns its devices again and re-writes its CDI spec if missing; otherwise the claim is read, checked
 * (`checkAllocation`), guarded against a device already prepared for another claim, marked `PrepareStarted`,
 * handed to the driver, its CDI spec written, and marked `PrepareCompleted` (see `prepareClaims`: the checkpoint
 * is shared with the driver's other instances and changed only under its lock).
 */
export function createClaimPreparer(options: ClaimPreparerOptions): ClaimPreparer {
  const cdi = createClaimCdi(options.cdi, options.driverName);
  let state: ReadonlyMap<string, PreparedClaimRecord> = new Map();
  let tail: Promise<unknown> = Promise.resolve();

  const serialize = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
  const context = (): ClaimBatchContext => ({
    driverName: options.driverName,
    node: options,
    driver: options.driver,
    claims: options.claims,
    checkpoint: options.checkpoint,
    cdi,
    seen: (claims) => {
      state = claims;
    },
  });

  return {
    async load() {
      const loaded = await options.checkpoint.load();
      state = loaded.claims;
      return loaded;
    },
    prepare: (claims) => serialize(() => prepareClaims(context(), claims)),
    unprepare: (claims) => serialize(() => unprepareClaims(context(), claims)),
    prepared: () => state,
  };
}
