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
  /** Loads the checkpoint; call once before the first prepare. */
  load(): ReturnType<Checkpoint['load']>;
  /** Answers every claim (by UID), each with its devices or its own error; never rejects for one claim. */
  prepare(claims: readonly ClaimRef[]): Promise<Map<string, ClaimOutcome>>;
  /** Answers every claim (by UID) with '' or its error; an unknown claim succeeds. */
  unprepare(claims: readonly ClaimRef[]): Promise<Map<string, string>>;
  /** The claims currently prepared or being prepared, by UID. */
  prepared(): ReadonlyMap<string, PreparedClaimRecord>;
}

/**
 * Creates the claim preparer: calls run one at a time (a second waits for the first); prepare of a checkpointed
 * claim returns its devices again and re-writes its CDI spec if missing (after a reboot); otherwise the claim is
 * read, checked (`checkAllocation`), guarded against a device already prepared for another claim, marked
 * `PrepareStarted`, handed to the driver, its CDI spec written, and marked `PrepareCompleted`.
 */
export function createClaimPreparer(options: ClaimPreparerOptions): ClaimPreparer {
  const cdi = createClaimCdi(options.cdi, options.driverName);
  let state = new Map<string, PreparedClaimRecord>();
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
    state,
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
