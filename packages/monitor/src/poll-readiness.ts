import type { ProbeResult } from '@kdp/base';

/** What {@link pollReadiness} judges: the last successful poll and the last failure. */
export interface PollHistory {
  readonly lastSuccessAt: number | undefined;
  /** `method: code: message` of the last failed poll, or '' before any. */
  readonly lastFailure: string;
  readonly staleAfterMs: number;
  readonly now: number;
}

/** Ready (`ok`) once a poll succeeded within the staleness window; `message` says why not. */
export function pollReadiness(history: PollHistory): ProbeResult & { message: string } {
  const { lastSuccessAt, lastFailure } = history;
  if (lastSuccessAt === undefined)
    return {
      ok: false,
      message: lastFailure ? `no successful poll yet (${lastFailure})` : 'no successful poll yet',
    };
  const age = history.now - lastSuccessAt;
  if (age > history.staleAfterMs)
    return {
      ok: false,
      message: `last successful poll ${Math.round(age / 1000)} s ago (${lastFailure})`,
    };
  return { ok: true, message: 'ok' };
}
