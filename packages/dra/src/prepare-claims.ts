import { checkAllocation, type ClaimRef } from './check-allocation';
import type { PreparedClaimRecord, PreparedDeviceRecord } from './checkpoint';
import type { ClaimBatchContext } from './claim-batch-context';
import { checkClaimRef, checkSameClaim, describeClaim, findDeviceConflict } from './claim-checks';
import type { PrepareInput } from './dra-driver';
import { messageOf } from './message-of';
import { buildPreparedRecord } from './prepared-record';
import type { ResourceClaim } from './resource-claim';

/** A per-claim outcome: devices, or the error message. */
export type ClaimOutcome =
  | { readonly devices: readonly PreparedDeviceRecord[]; readonly error?: undefined }
  | { readonly error: string; readonly devices?: undefined };

/** A checked claim the driver must prepare. */
interface Pending {
  readonly ref: ClaimRef;
  readonly input: PrepareInput;
}

/** A claim the driver prepared: its completed record. */
interface Finished {
  readonly ref: ClaimRef;
  readonly record: PreparedClaimRecord;
}

const NOT_DURABLE = { durable: false } as const;

const failure = (ref: ClaimRef, error: unknown): ClaimOutcome => ({
  error: `prepare ResourceClaim ${describeClaim(ref)}: ${messageOf(error)}`,
});

/**
 * Prepares a call's claims (each answered by UID, never rejecting for one claim). The checkpoint is shared with
 * the driver's other instances, so it is read again for each step and changed only under its lock, which is held
 * only for the step itself, never across an API request or the driver's work: (1) without the lock, checkpointed
 * claims are answered (their CDI spec written again if missing) and the others read and checked; (2) under the
 * lock, against the records as they are now, each is refused if another claim holds one of its devices, else
 * marked `PrepareStarted` (a crash after this leaves a record a later unprepare cleans up); (3) the driver
 * prepares them and their CDI specs are written; (4) under the lock they are marked `PrepareCompleted` — unless
 * an unprepare (by another instance) removed the record meanwhile: then the work is undone and the claim fails.
 * Steps 2 and 4 write the checkpoint for all the claims at once, and only step 4's write is synced: one durable
 * write (one directory fsync) per call, none when every claim was answered from the checkpoint.
 */
export async function prepareClaims(
  context: ClaimBatchContext,
  claims: readonly ClaimRef[],
): Promise<Map<string, ClaimOutcome>> {
  const outcomes = new Map<string, ClaimOutcome>();
  const snapshot = await context.checkpoint.read();
  context.seen(snapshot);
  const checked: Pending[] = [];
  for (const ref of claims) {
    if (outcomes.has(ref.uid) || checked.some((item) => item.ref.uid === ref.uid)) continue;
    try {
      const done = await answerCheckpointed(context, ref, snapshot.get(ref.uid));
      if (done !== undefined) outcomes.set(ref.uid, done);
      else checked.push(await checkClaim(context, ref));
    } catch (error) {
      outcomes.set(ref.uid, failure(ref, error));
    }
  }
  if (checked.length === 0) return outcomes;
  const pending = await markStarted(context, checked, outcomes);
  const finished: Finished[] = [];
  for (const item of pending) {
    try {
      const output = await context.driver.prepare(item.input);
      const record = buildPreparedRecord(item.ref, item.input.results, output, context.cdi.qualify);
      await context.cdi.write(record);
      finished.push({ ref: item.ref, record });
    } catch (error) {
      outcomes.set(item.ref.uid, failure(item.ref, error));
    }
  }
  if (finished.length > 0) await markCompleted(context, finished, outcomes);
  return outcomes;
}

/** A claim the checkpoint holds as completed: its devices (CDI spec written again); else undefined. */
async function answerCheckpointed(
  context: ClaimBatchContext,
  ref: ClaimRef,
  existing: PreparedClaimRecord | undefined,
): Promise<ClaimOutcome | undefined> {
  checkClaimRef(ref);
  if (existing !== undefined) checkSameClaim(ref, existing);
  if (existing?.state !== 'PrepareCompleted') return undefined;
  await context.cdi.write(existing);
  return { devices: existing.devices };
}

/** Reads the claim from the API server and checks its allocation (and configuration) for this driver. */
async function checkClaim(context: ClaimBatchContext, ref: ClaimRef): Promise<Pending> {
  const claim = await context.claims.get(ref.namespace, ref.name);
  const { results, config } = checkAllocation(
    claim,
    ref,
    context.driverName,
    context.node,
    context.driver.decodeConfig?.bind(context.driver),
  );
  return { ref, input: { claim: claim as ResourceClaim, results, config } };
}

/** Step 2: under the lock, the claims that may go ahead are marked `PrepareStarted`; the rest are answered. */
async function markStarted(
  context: ClaimBatchContext,
  checked: readonly Pending[],
  outcomes: Map<string, ClaimOutcome>,
): Promise<Pending[]> {
  const completedMeanwhile: PreparedClaimRecord[] = [];
  try {
    // Not synced: the call's one durable write is step 4's (see `createCheckpoint`'s write), so a crash of the
    // process in between still leaves this record, and a crash of the node discards it with the boot anyway.
    const { result, claims } = await context.checkpoint.update((current) => {
      const go: Pending[] = [];
      for (const item of checked) {
        const { ref, input } = item;
        const existing = current.get(ref.uid);
        try {
          if (existing !== undefined) checkSameClaim(ref, existing);
          if (existing?.state === 'PrepareCompleted') {
            completedMeanwhile.push(existing); // another instance prepared it since step 1
            continue;
          }
          const clash = findDeviceConflict(current, ref.uid, input.results);
          if (clash !== undefined) throw new Error(clash);
          current.set(ref.uid, { ...ref, state: 'PrepareStarted', results: input.results, devices: [] });
          go.push(item);
        } catch (error) {
          outcomes.set(ref.uid, failure(ref, error));
        }
      }
      return go;
    }, NOT_DURABLE);
    context.seen(claims);
    for (const record of completedMeanwhile) {
      try {
        await context.cdi.write(record);
        outcomes.set(record.uid, { devices: record.devices });
      } catch (error) {
        outcomes.set(record.uid, failure(record, error));
      }
    }
    return result;
  } catch (error) {
    for (const { ref } of checked)
      outcomes.set(ref.uid, failure(ref, new Error(`checkpoint not written: ${messageOf(error)}`)));
    return [];
  }
}

/** Step 4: under the lock, the prepared claims still recorded as started are completed; the others undone. */
async function markCompleted(
  context: ClaimBatchContext,
  finished: readonly Finished[],
  outcomes: Map<string, ClaimOutcome>,
): Promise<void> {
  let gone: Finished[];
  try {
    const { result, claims } = await context.checkpoint.update((current) => {
      const lost: Finished[] = [];
      for (const item of finished) {
        if (current.get(item.ref.uid)?.state === 'PrepareStarted') current.set(item.ref.uid, item.record);
        else lost.push(item);
      }
      return lost;
    });
    context.seen(claims);
    gone = result;
  } catch (error) {
    // Prepared but not durable: fail these claims so the kubelet asks again (the record says PrepareStarted).
    for (const { ref } of finished)
      outcomes.set(ref.uid, failure(ref, new Error(`checkpoint not written: ${messageOf(error)}`)));
    return;
  }
  for (const { ref, record } of finished) {
    if (!gone.some((item) => item.ref.uid === ref.uid)) {
      outcomes.set(ref.uid, { devices: record.devices });
      continue;
    }
    let undone = '';
    try {
      await context.driver.unprepare?.({
        claim: { namespace: ref.namespace, name: ref.name, uid: ref.uid },
        devices: record.devices,
        results: record.results,
        state: 'PrepareCompleted',
      });
      await context.cdi.remove(ref.uid);
    } catch (error) {
      undone = ` (undoing it failed: ${messageOf(error)})`;
    }
    outcomes.set(
      ref.uid,
      failure(
        ref,
        new Error(`the claim was unprepared while it was being prepared; prepare it again${undone}`),
      ),
    );
  }
}
