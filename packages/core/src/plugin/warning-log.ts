/** Logs each of a recurring list of problems once while it lasts. */
export interface WarningLog {
  /** The problems now: those not in the previous report are logged; one that went away is logged again if it returns. */
  report(warnings: readonly string[]): void;
}

/** Creates a warning log that hands each new problem to `log`. */
export function createWarningLog(log: (warning: string) => void): WarningLog {
  let shown = new Set<string>();
  return {
    report(warnings) {
      const next = new Set(warnings);
      for (const warning of next) if (!shown.has(warning)) log(warning);
      shown = next;
    },
  };
}
