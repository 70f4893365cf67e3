import type { ClaimRef } from './check-allocation';
import type { ClaimBatchContext } from './claim-batch-context';
import { checkClaimRef, describeClaim } from './claim-checks';
import { messageOf } from './message-of';

/**
 * Unprepares a call's claims: for each one the checkpoint holds (written by this instance or another), the
 * driver's unprepare, then its CDI spec is removed (also for an unknown claim); then, under the checkpoint's
 * lock, the records of those that succeeded are dropped from the records as they are now. Answers every claim
 * (by UID) with '' or its error; an unknown claim succeeds.
 */
export async function unprepareClaims(
  context: ClaimBatchContext,
  claims: readonly ClaimRef[],
): Promise<Map<string, string>> {
  const errors = new Map<string, string>();
  const fail = (ref: ClaimRef, error: unknown): void =>
    void errors.set(ref.uid, `unprepare ResourceClaim ${describeClaim(ref)}: ${messageOf(error)}`);
  const snapshot = await context.checkpoint.read();
  context.seen(snapshot);
  const done: ClaimRef[] = [];
  for (const ref of claims) {
    if (errors.has(ref.uid)) continue;
    try {
      checkClaimRef(ref);
      const record = snapshot.get(ref.uid);
      if (record !== undefined)
        await context.driver.unprepare?.({
          claim: { namespace: record.namespace, name: record.name, uid: record.uid },
          devices: record.devices,
          results: record.results,
          state: record.state,
        });
      await context.cdi.remove(ref.uid);
      errors.set(ref.uid, '');
      if (record !== undefined) done.push(ref);
    } catch (error) {
      fail(ref, error);
    }
  }
  if (done.length === 0) return errors;
  try {
    const { claims: after } = await context.checkpoint.update((current) => {
      for (const ref of done) current.delete(ref.uid);
    });
    context.seen(after);
  } catch (error) {
    for (const ref of done) fail(ref, new Error(`checkpoint not written: ${messageOf(error)}`));
  }
  return errors;
}
