/** Log levels, lowest first. */
export const logLevels = ['debug', 'info', 'warn', 'error'] as const;

/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];

/** Structured fields added to a log line. */
export type LogFields = Record<string, unknown>;

/** A JSON-lines logger. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level?: LogLevel;
  /** Receives one complete line (with its newline); default: process.stderr. */
  write?: (line: string) => void;
  now?: () => number;
}

/** True when `value` names a log level. */
export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}

/** Creates a logger that writes one JSON object per line: `{ts, level, msg, ...fields}`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const min = logLevels.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? Date.now;
  const log = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (logLevels.indexOf(level) < min) return;
    const head = { ts: new Date(now()).toISOString(), level, msg };
    let line: string;
    try {
      line = JSON.stringify({ ...head, ...fields, ...head });
    } catch {
      line = JSON.stringify({ ...head, fields: 'unserialisable' });
    }
    write(`${line}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

const ignore = (): void => undefined;

/** A logger that drops everything. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
