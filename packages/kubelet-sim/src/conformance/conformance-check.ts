/** The outcome of one conformance check. */
export type CheckStatus = 'pass' | 'fail' | 'warn';

/** One conformance check and its outcome, with the reason in words. */
export interface ConformanceCheck {
  /** Stable identifier, e.g. `first-list-latency`. */
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  readonly reason: string;
}

/** The result of {@link runConformance}: `ok` when no check failed. */
export interface ConformanceReport {
  readonly ok: boolean;
  /** The resource that was checked, when one registered. */
  readonly resource?: string;
  readonly checks: ConformanceCheck[];
}
