import { type CheckDefinition, checkResult, strictCheck } from '../check-catalog';
import type { ConformanceCheck, ConformanceReport } from '../conformance-check';
import { plannedDraChecks } from './dra-check-catalog';

/** The checks of a DRA conformance run so far, and how a check is added. */
export interface DraCheckResults {
  readonly checks: readonly ConformanceCheck[];
  /** Adds a check (a warning becomes a failure when strict) and reports it to `onCheck`. */
  add(check: ConformanceCheck): void;
  pass(definition: CheckDefinition, reason: string): void;
  fail(definition: CheckDefinition, reason: string): void;
  skip(definition: CheckDefinition, reason: string): void;
  /** Skips every planned check not added yet. */
  skipRest(reason: string): void;
  report(): ConformanceReport;
}

/** Creates the empty results of a run against `driver`. */
export function createDraCheckResults(options: {
  readonly driver: string;
  readonly strict: boolean;
  readonly onCheck?: ((check: ConformanceCheck) => void) | undefined;
}): DraCheckResults {
  const checks: ConformanceCheck[] = [];
  const add = (check: ConformanceCheck): void => {
    const final = strictCheck(check, options.strict);
    checks.push(final);
    options.onCheck?.(final);
  };
  const skip = (d: CheckDefinition, reason: string): void => add(checkResult(d, 'skip', reason));
  return {
    checks,
    add,
    pass: (d, reason) => add(checkResult(d, 'pass', reason)),
    fail: (d, reason) => add(checkResult(d, 'fail', reason)),
    skip,
    skipRest: (reason) => {
      const done = new Set(checks.map((c) => c.id));
      for (const d of plannedDraChecks()) if (!done.has(d.id)) skip(d, reason);
    },
    report: () => ({
      ok: checks.every((c) => c.status !== 'fail'),
      strict: options.strict,
      resource: options.driver,
      checks,
    }),
  };
}
