/** One log method: pino's `(fields, message)` calling convention. */
export type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/** The pino-compatible subset of a logger that core writes to (pino instances satisfy it). */
export interface LifecycleLogger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

const noop: LogMethod = () => undefined;

/** A logger that drops everything: core's default, so a library never writes unasked. */
export const silentLogger: LifecycleLogger = { debug: noop, info: noop, warn: noop, error: noop };
