import type { ClaimRef } from './check-allocation';
import { sameState, type ClaimBatchContext } from './claim-batch-context';
import { checkClaimRef, describeClaim } from './claim-checks';
import { messageOf } from './message-of';

/**
 * Unprepares a call's claims: the driver's unprepare for each known one, its CDI spec removed, its record dropped
 * and the checkpoint saved once. Answers every claim (by UID) with '' or its error; an unknown claim succeeds.
 */
export async function unprepareClaims(
  context: ClaimBatchContext,
  claims: readonly ClaimRef[],
): Promise<Map<string, string>> {
  const { state } = context;
  const errors = new Map<string, string>();
  const before = new Map(state);
  for (const ref of claims) {
    if (errors.has(ref.uid)) continue;
    try {
      await unprepareOne(context, ref);
      errors.set(ref.uid, '');
    } catch (error) {
      errors.set(ref.uid, `unprepare ResourceClaim ${describeClaim(ref)}: ${messageOf(error)}`);
    }
  }
  if (!sameState(before, state)) {
    try {
      await context.checkpoint.save(state);
    } catch (error) {
      for (const ref of claims)
        if (before.has(ref.uid))
          errors.set(
            ref.uid,
            `unprepare ResourceClaim ${describeClaim(ref)}: checkpoint not written: ${messageOf(error)}`,
          );
    }
  }
  return errors;
}

async function unprepareOne(context: ClaimBatchContext, ref: ClaimRef): Promise<void> {
  checkClaimRef(ref);
  const record = context.state.get(ref.uid);
  if (record !== undefined) {
    await context.driver.unprepare?.({
      claim: { namespace: record.namespace, name: record.name, uid: record.uid },
      devices: record.devices,
      results: record.results,
      state: record.state,
    });
  }
  await context.cdi.remove(ref.uid);
  context.state.delete(ref.uid);
}
