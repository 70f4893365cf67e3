import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type { PluginMetrics } from '../metrics/plugin-metrics';
import type { AnyPluginDefinition } from './define-plugin';

/** What a plugin process offers everything it runs: logs, clock, roots, metrics and its shutdown signal. */
export interface ProcessServices {
  readonly logger: Logger;
  /** The logger of one plugin (its own child logger in a multi-plugin binary). */
  loggerOf(definition: AnyPluginDefinition): Logger;
  readonly clock: Clock;
  readonly host: Host;
  /** The process's metrics (`/metrics`; the device-plugin mode's `/readyz` reads them). */
  readonly metrics: PluginMetrics;
  /** Aborts when the process shuts down (the first SIGTERM or SIGINT). */
  readonly signal: AbortSignal;
}
