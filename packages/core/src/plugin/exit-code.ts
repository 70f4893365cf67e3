/** The exit codes every kdp plugin uses (see the plugin contract). */
export const ExitCode = {
  /** The command did its job (for `discover`: the scan ran, even with zero devices). */
  Ok: 0,
  /** Anything else went wrong. */
  Failure: 1,
  /** Usage or configuration error: unknown flag, bad value, bad configuration file. */
  Usage: 2,
} as const;

/** One of the values of the `ExitCode` constant (0, 1 or 2). */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A command line that cannot be run as given; the CLI prints its message and the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
