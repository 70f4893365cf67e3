import pino, { type Logger } from 'pino';

/** The levels `--log-level` accepts, most verbose first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** True when `value` is one of {@link LOG_LEVELS}. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Where log lines go: anything with `write(line)` (default: stderr, synchronously). */
export interface LogDestination {
  write(line: string): unknown;
}

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Minimum level (default `info`); `silent` logs nothing. */
  readonly level?: LogLevel | 'silent';
  /** The program, logged as `name` on every line. */
  readonly name?: string;
  /** Where lines go (default stderr). */
  readonly destination?: LogDestination;
  /** Fields added to every line. */
  readonly base?: Readonly<Record<string, unknown>>;
}

/**
 * A pino logger writing one JSON object per line: `level` as a word, `time` as ISO 8601, `name`, `pid`,
 * `msg`, and the fields given. Errors logged as `{ err }` carry their type, message and stack.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level: options.level ?? 'info',
      base: { ...(options.name ? { name: options.name } : {}), pid: process.pid, ...options.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

export type { Logger };
