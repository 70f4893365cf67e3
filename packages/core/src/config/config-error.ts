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
    .map((issue) => {
      const path = oneLine(issue.path);
      const message = oneLine(issue.message);
      return path ? `${file}: ${path}: ${message}` : `${file}: ${message}`;
    })
    .join('\n');
}

/** Control characters from the file (a key or value echoed in a message) escaped, so one issue stays one line. */
const oneLine = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));

/** True for a ConfigError (also across module copies, by name). */
export function isConfigError(error: unknown): error is ConfigError {
  return (
    error instanceof ConfigError ||
    (error instanceof Error && error.name === 'ConfigError' && 'issues' in error)
  );
}
