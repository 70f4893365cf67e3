/**
 * The outcome of one conformance check: `pass`; `fail` (a rule the kubelet enforces is broken, or a
 * recommended practice missed under `strict`); `warn` (a recommended practice missed); `skip` (does not apply,
 * or could not run; never counted as a pass).
 */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One conformance check and its outcome, with the reason in words. */
export interface ConformanceCheck {
  /** Stable identifier, e.g. `first-list-latency`. */
  readonly id: string;
  /** What the check demands, in a few words. */
  readonly title: string;
  /**
   * `required`: a real kubelet punishes a plugin that breaks it (the check passes, fails or skips);
   * `recommended`: robustness no kubelet demands (the check warns instead of failing, unless `strict`).
   */
  readonly level: 'required' | 'recommended';
  /** The kubelet behaviours it enforces: P-numbers of the kubelet protocol notes, section 2. */
  readonly rules: readonly string[];
  /** The outcome. */
  readonly status: CheckStatus;
  /** Why, in words; a reason other than a pass ends with the level and the rules, e.g. `(required: P-11)`. */
  readonly reason: string;
}

/** The result of `runConformance`: `ok` when no check failed. */
export interface ConformanceReport {
  /** True when no check has status `fail`. */
  readonly ok: boolean;
  /** Whether the run was strict: every `warn` of a recommended check became a `fail`. */
  readonly strict: boolean;
  /** The resource that was checked, when one registered. */
  readonly resource?: string;
  /** Every check, in the order they ran. */
  readonly checks: ConformanceCheck[];
}
