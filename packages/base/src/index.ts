/**
 * What every kdp process needs below the device-plugin layer: an injectable clock, backoff, a unix-socket
 * probe, the `/metrics` + `/healthz` + `/readyz` server, the JSON logger, atomic file writes and an exit that
 * flushes stdout first. Core, the device monitor and
 * kubelet-sim all stand on it; it depends on no other kdp package.
 *
 * @packageDocumentation
 * @module @kdp/base
 */

export { systemClock } from './clock';
export type { Clock, TimerHandle } from './clock';
export { createBackoff } from './backoff';
export type { BackoffOptions } from './backoff';
export { isDialable, waitDialable } from './socket-probe';
export { parseHostPort } from './parse-host-port';
export type { HostPort } from './parse-host-port';
export { startProbeServer } from './probe-server';
export type {
  MetricsSource,
  ProbeProvider,
  ProbeResult,
  ProbeServer,
  ProbeServerOptions,
} from './probe-server';
export { createLogger, isLogLevel, LOG_LEVELS } from './create-logger';
export type { CreateLoggerOptions, LogDestination, Logger, LogLevel } from './create-logger';
export { silentLogger } from './silent-logger';
export { writeFileAtomic } from './write-file-atomic';
export { exitWhenFlushed, flushStreams } from './exit-when-flushed';
export type { FlushableStream } from './exit-when-flushed';
export type { WriteFileAtomicOptions } from './write-file-atomic';
export type { LifecycleLogger, LogMethod } from './silent-logger';
