/** One problem found in a configuration file: where (a field path such as `resourceList[2].selectors`) and what. */
export interface ConfigIssue {
  /** The field path in JavaScript notation; empty for the document as a whole. */
  readonly path: string;
  /** What is wrong, in words. */
  readonly message: string;
}

/** A configuration file that cannot be used: its message names the file, every bad field and the problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    /** The configuration file. */
    readonly file: string,
    /** Every problem found, in document order. */
    readonly issues: readonly ConfigIssue[],
  ) {
    super(formatConfigIssues(file, issues));
  }
}

/** Formats issues as `FILE: PATH: PROBLEM` lines (`FILE: PROBLEM` where the problem is the whole document). */
export function formatConfigIssues(file: string, issues: readonly ConfigIssue[]): string {
  return issues
    .map((issue) => (issue.path ? `${file}: ${issue.path}: ${issue.message}` : `${file}: ${issue.message}`))
    .join('\n');
}

/** True for a ConfigError (also across module copies, by name). */
export function isConfigError(error: unknown): error is ConfigError {
  return (
    error instanceof ConfigError ||
    (error instanceof Error && error.name === 'ConfigError' && 'issues' in error)
  );
}
