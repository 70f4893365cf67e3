import { goErrorString } from '../../grpc-util';
import type { ApiObject, DraCheckApi } from './dra-check-api';
import { poolsComplete } from './slice-checks';

/**
 * Reads this node's slices of `driver` until every pool is complete or `timeoutMs` passed; returns what it saw
 * last, when, and the last API error.
 */
export async function waitForSlices(
  api: DraCheckApi,
  node: string,
  driver: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ slices: ApiObject[]; elapsedMs: number; error?: string }> {
  const started = Date.now();
  let slices: ApiObject[] = [];
  let error: string | undefined;
  for (;;) {
    try {
      slices = await api.listSlices(node, driver);
      error = undefined;
    } catch (err) {
      error = goErrorString(err);
    }
    const elapsedMs = Date.now() - started;
    if (poolsComplete(slices) || elapsedMs >= timeoutMs || signal.aborted) {
      return { slices, elapsedMs, ...(error === undefined ? {} : { error }) };
    }
    // Polling the API server: a watch would do, but a list every 100 ms is simpler and as good here.
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, timeoutMs - elapsedMs)));
  }
}
