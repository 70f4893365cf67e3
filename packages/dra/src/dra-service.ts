import { status, type sendUnaryData } from '@grpc/grpc-js';
import type { draV1 } from '@kdp/api';
import type { Clock } from '@kdp/base';
import type { ClaimRef } from './check-allocation';
import type { ClaimPreparer } from './claim-preparer';

/** Options of {@link createDraService}. */
export interface DraServiceOptions {
  readonly preparer: Pick<ClaimPreparer, 'prepare' | 'unprepare'>;
  /** Measures the calls. */
  readonly clock: Clock;
  /** Told after each call: how many claims it had, the errors of those that failed, and how long it took. */
  readonly report: (
    type: 'prepared' | 'unprepared',
    claims: number,
    errors: readonly string[],
    durationMs: number,
  ) => void;
}

/**
 * The DRAPlugin service (v1; v1beta1 has the same messages but for `share_id`): NodePrepareResources and
 * NodeUnprepareResources answered claim by claim from the preparer; a call fails as a whole (INTERNAL) only when
 * the preparer itself throws.
 */
export function createDraService(options: DraServiceOptions): draV1.DRAPluginServer {
  const { preparer, report, clock } = options;
  return {
    nodePrepareResources: (call, callback) =>
      answer(callback, async () => {
        const started = clock.now();
        const claims = claimRefs(call.request?.claims);
        const outcomes = await measured(
          () => preparer.prepare(claims),
          (error) => report('prepared', claims.length, everyClaim(claims, error), clock.now() - started),
        );
        const response: draV1.NodePrepareResourcesResponse = { claims: {} };
        const errors: string[] = [];
        for (const [uid, outcome] of outcomes) {
          if (outcome.error !== undefined) errors.push(outcome.error);
          response.claims[uid] = {
            error: outcome.error ?? '',
            devices: (outcome.devices ?? []).map((d) => ({
              requestNames: [...d.requestNames],
              poolName: d.poolName,
              deviceName: d.deviceName,
              cdiDeviceIds: [...d.cdiDeviceIds],
              ...(d.shareId !== undefined ? { shareId: d.shareId } : {}),
            })),
          };
        }
        report('prepared', claims.length, errors, clock.now() - started);
        return response;
      }),
    nodeUnprepareResources: (call, callback) =>
      answer(callback, async () => {
        const started = clock.now();
        const claims = claimRefs(call.request?.claims);
        const outcomes = await measured(
          () => preparer.unprepare(claims),
          (error) => report('unprepared', claims.length, everyClaim(claims, error), clock.now() - started),
        );
        const response: draV1.NodeUnprepareResourcesResponse = { claims: {} };
        for (const [uid, error] of outcomes) response.claims[uid] = { error };
        report(
          'unprepared',
          claims.length,
          [...outcomes.values()].filter((e) => e !== ''),
          clock.now() - started,
        );
        return response;
      }),
  };
}

/** The claims of a request, each field a string ('' when missing; the preparer answers that claim's error). */
function claimRefs(claims: readonly Partial<ClaimRef>[] | undefined): ClaimRef[] {
  return (claims ?? []).map((c) => ({ namespace: c.namespace ?? '', name: c.name ?? '', uid: c.uid ?? '' }));
}

/** The errors of a call that failed as a whole: every claim's (one when it had none). */
function everyClaim(claims: readonly ClaimRef[], error: string): string[] {
  return claims.length === 0 ? [error] : claims.map(() => error);
}

/** Runs a call of the preparer; a failure of the whole call is reported before it is answered INTERNAL. */
async function measured<T>(run: () => Promise<T>, failed: (error: string) => void): Promise<T> {
  try {
    return await run();
  } catch (error) {
    failed(error instanceof Error ? error.message : String(error));
    throw error;
  }
}

function answer<T>(callback: sendUnaryData<T>, run: () => Promise<T>): void {
  run().then(
    (response) => callback(null, response),
    (error: unknown) =>
      callback(
        { code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) },
        null,
      ),
  );
}
