import { goErrorString } from '../grpc-util';
import type { DraClaim } from './dra-endpoint';

/**
 * One NodePrepareResources or NodeUnprepareResources call with the kubelet's response rules: a gRPC error, a
 * per-claim error, a result for a claim not asked about, or a claim left out each fail the whole call.
 */
export async function callDraDriver<R extends { claims: Record<string, { error: string }> }>(
  rpc: 'NodePrepareResources' | 'NodeUnprepareResources',
  batch: readonly DraClaim[],
  call: () => Promise<R>,
): Promise<R> {
  let response: R;
  try {
    response = await call();
  } catch (err) {
    throw new Error(`${rpc}: ${goErrorString(err)}`, { cause: err });
  }
  for (const [uid, result] of Object.entries(response.claims)) {
    const requested = batch.find((c) => c.uid === uid);
    if (requested === undefined) throw new Error(`${rpc} returned result for unknown claim UID ${uid}`);
    if (result.error !== '')
      throw new Error(`${rpc} failed for ResourceClaim ${requested.name}: ${result.error}`);
  }
  const unfinished = batch.length - Object.keys(response.claims).length;
  if (unfinished !== 0) throw new Error(`${rpc} skipped ${unfinished} ResourceClaims`);
  return response;
}
