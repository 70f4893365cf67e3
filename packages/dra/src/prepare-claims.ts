import { checkAllocation, type ClaimRef } from './check-allocation';
import type { PreparedDeviceRecord } from './checkpoint';
import { sameState, type ClaimBatchContext } from './claim-batch-context';
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

/**
 * Prepares a call's claims (each answered by UID, never rejecting for one claim): phase 1 checks each and answers
 * the checkpointed ones; the rest are saved as `PrepareStarted` (one checkpoint write for the batch, so a crash in
 * the middle leaves a record a later unprepare cleans up), handed to the driver, and saved again completed.
 */
export async function prepareClaims(
  context: ClaimBatchContext,
  claims: readonly ClaimRef[],
): Promise<Map<string, ClaimOutcome>> {
  const { state, checkpoint } = context;
  const outcomes = new Map<string, ClaimOutcome>();
  const pending: Pending[] = [];
  const failed = (ref: ClaimRef, error: unknown): ClaimOutcome => ({
    error: `prepare ResourceClaim ${describeClaim(ref)}: ${messageOf(error)}`,
  });
  const before = new Map(state);
  for (const ref of claims) {
    if (outcomes.has(ref.uid)) continue;
    try {
      const checked = await checkOne(context, ref);
      if ('input' in checked) pending.push(checked);
      else outcomes.set(ref.uid, checked);
    } catch (error) {
      outcomes.set(ref.uid, failed(ref, error));
    }
  }
  if (pending.length > 0) {
    try {
      await checkpoint.save(state);
    } catch (error) {
      for (const { ref } of pending) {
        const previous = before.get(ref.uid);
        if (previous !== undefined) state.set(ref.uid, previous);
        else state.delete(ref.uid);
        outcomes.set(ref.uid, failed(ref, new Error(`checkpoint not written: ${messageOf(error)}`)));
      }
      return outcomes;
    }
  }
  for (const item of pending) {
    try {
      outcomes.set(item.ref.uid, await finishOne(context, item));
    } catch (error) {
      outcomes.set(item.ref.uid, failed(item.ref, error));
    }
  }
  if (pending.length > 0 || !sameState(before, state)) {
    try {
      await checkpoint.save(state);
    } catch (error) {
      // Prepared but not durable: fail these claims so the kubelet asks again (answered from memory).
      for (const { ref } of pending)
        outcomes.set(ref.uid, failed(ref, new Error(`checkpoint not written: ${messageOf(error)}`)));
    }
  }
  return outcomes;
}

/** Phase 1 of one claim: its checkpointed devices (CDI spec re-written if missing), or the checked claim. */
async function checkOne(context: ClaimBatchContext, ref: ClaimRef): Promise<ClaimOutcome | Pending> {
  const { state } = context;
  checkClaimRef(ref);
  const existing = state.get(ref.uid);
  if (existing !== undefined) checkSameClaim(ref, existing);
  if (existing?.state === 'PrepareCompleted') {
    await context.cdi.write(existing);
    return { devices: existing.devices };
  }
  const claim = await context.claims.get(ref.namespace, ref.name);
  const { results, config } = checkAllocation(
    claim,
    ref,
    context.driverName,
    context.node,
    context.driver.decodeConfig?.bind(context.driver),
  );
  const clash = findDeviceConflict(state, ref.uid, results);
  if (clash !== undefined) throw new Error(clash);
  state.set(ref.uid, { ...ref, state: 'PrepareStarted', results, devices: [] });
  return { ref, input: { claim: claim as ResourceClaim, results, config } };
}

/** Phase 2 of one claim: the driver's work, the CDI spec, the completed record. */
async function finishOne(context: ClaimBatchContext, { ref, input }: Pending): Promise<ClaimOutcome> {
  const output = await context.driver.prepare(input);
  const record = buildPreparedRecord(ref, input.results, output, context.cdi.qualify);
  await context.cdi.write(record);
  context.state.set(ref.uid, record);
  return { devices: record.devices };
}
