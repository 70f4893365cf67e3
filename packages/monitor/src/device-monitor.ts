import { EventEmitter } from 'node:events';
import type { Registry } from 'prom-client';
import {
  createBackoff,
  silentLogger,
  systemClock,
  type BackoffOptions,
  type Clock,
  type LifecycleLogger,
  type ProbeResult,
} from '@kdp/base';
import { createDeviceMetrics } from './device-metrics';
import { createDraHealthWatcher } from './dra-health-watcher';
import type { NodeSnapshot } from './node-snapshot';
import { createPluginHealthJoin } from './plugin-health-join';
import type { DeviceHealth, EndpointScrape, PluginHealthScraper } from './plugin-health-scraper';
import type { PodResourcesClient } from './pod-resources-client';
import { createPodResourcesPoller, type PollResult } from './pod-resources-poller';
import { pollReadiness } from './poll-readiness';
import { createStatusMetrics } from './status-metrics';

/** Options of {@link createDeviceMonitor}. */
export interface DeviceMonitorOptions {
  client: PodResourcesClient;
  registry: Registry;
  /** Delay between successful polls (default 1000 ms). */
  intervalMs?: number;
  /**
   * Backoff after a failed poll (RESOURCE_EXHAUSTED or any other error); never shorter than the interval.
   * Defaults: from max(interval, 500 ms), doubling, up to 30 s, 20 % jitter.
   */
  backoff?: BackoffOptions;
  /** Plugin metrics endpoints to join device health from; absent = no health join. */
  healthScraper?: PluginHealthScraper;
  /**
   * The DRA plugins directory (`/var/lib/kubelet/plugins`) whose drivers' health services (`<driver>/dra*.sock`)
   * are joined to the DRA devices; absent = no DRA health. Scanned on every poll.
   */
  draPluginsDir?: string;
  /** Readiness turns false when no poll succeeded for this long (default max(10 × interval, 30 s)). */
  staleAfterMs?: number;
  clock?: Clock;
  /** Where to log (pino's `(fields, message)` convention); default: nowhere. */
  logger?: LifecycleLogger;
  version?: string;
}

/**
 * Events: `poll` (PollResult), `scheduled` ({ delayMs, backoff: boolean }), `health` (EndpointScrape[]),
 * `draHealth` (a DRA driver reported health, or its stream ended; the metrics are updated).
 */
export interface DeviceMonitorEvents {
  poll: [PollResult];
  scheduled: [{ delayMs: number; backoff: boolean }];
  health: [EndpointScrape[]];
  draHealth: [];
}

/** Polls the pod-resources API and keeps the registry's metrics current. */
export interface DeviceMonitor {
  /** Starts polling now; idempotent. */
  start(): void;
  /** Stops polling and waits for an in-flight poll; does not close the client. */
  stop(): Promise<void>;
  /** One poll (pod-resources and, when configured, a plugin health scrape); never rejects. */
  pollOnce(): Promise<PollResult>;
  /** Ready (`ok`) once a poll succeeded within the staleness window; `message` says why not. */
  readiness(): ProbeResult & { message: string };
  readonly events: EventEmitter<DeviceMonitorEvents>;
}

/** Creates the polling loop that turns pod-resources answers (and plugin health) into metrics. */
export function createDeviceMonitor(options: DeviceMonitorOptions): DeviceMonitor {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const intervalMs = options.intervalMs ?? 1_000;
  const staleAfterMs = options.staleAfterMs ?? Math.max(10 * intervalMs, 30_000);
  // Delay before retry number `failures` (1-based); reset to the interval after a success.
  const backoffDelay = createBackoff({
    initialMs: Math.max(intervalMs, 500),
    jitter: 0.2,
    ...options.backoff,
  });
  let failures = 0;
  const events = new EventEmitter<DeviceMonitorEvents>();
  const deviceMetrics = createDeviceMetrics(options.registry);
  const statusMetrics = createStatusMetrics(options.registry, {
    version: options.version ?? '0.0.0',
    pluginEndpoints: options.healthScraper?.endpoints ?? [],
  });

  let snapshot: NodeSnapshot | undefined;
  let health = new Map<string, DeviceHealth>();
  let lastSuccessAt: number | undefined;
  let lastFailure = '';
  let failing = false;
  let timer: unknown;
  let running = false;
  let inFlight: Promise<PollResult> | undefined;

  const draHealth =
    options.draPluginsDir === undefined
      ? undefined
      : createDraHealthWatcher({
          pluginsDir: options.draPluginsDir,
          clock,
          logger,
          onChange: () => {
            render();
            events.emit('draHealth');
          },
        });
  const render = () => {
    if (snapshot) deviceMetrics.render(snapshot, health, draHealth?.health);
  };
  const scraper = options.healthScraper;
  const healthJoin =
    scraper === undefined
      ? undefined
      : createPluginHealthJoin({
          scraper,
          statusMetrics,
          clock,
          logger,
          onHealth: (next, results) => {
            health = next;
            render();
            events.emit('health', results);
          },
        });
  const pollPodResources = createPodResourcesPoller({
    client: options.client,
    statusMetrics,
    logger,
    onSnapshot: (next) => {
      snapshot = next;
      render();
    },
  });

  const pollOnce = async (): Promise<PollResult> => {
    healthJoin?.start();
    draHealth?.refresh();
    const result = await pollPodResources();
    statusMetrics.podResourcesPoll(result.ok, clock.now());
    if (result.ok) {
      lastSuccessAt = clock.now();
      if (failing) logger.info({}, 'pod-resources API answering again');
      failing = false;
    } else {
      lastFailure = `${result.method}: ${result.code}: ${result.message}`;
      logger[failing ? 'debug' : 'warn'](
        { method: result.method, code: result.code, error: result.message },
        'pod-resources poll failed',
      );
      failing = true;
    }
    try {
      events.emit('poll', result);
    } catch (error) {
      logger.error({ err: error }, 'poll listener threw');
    }
    return result;
  };

  // The loop must outlive anything: a throwing event listener or metrics call only costs one poll.
  const pollSafely = async (): Promise<PollResult> => {
    try {
      return await pollOnce();
    } catch (error) {
      logger.error({ err: error }, 'poll crashed; retrying with backoff');
      return { ok: false, method: 'List', code: 'INTERNAL', message: String(error) };
    }
  };

  const schedule = (result: PollResult) => {
    failures = result.ok ? 0 : failures + 1;
    const delayMs = result.ok ? intervalMs : Math.max(intervalMs, backoffDelay(failures));
    timer = clock.setTimeout(tick, delayMs);
    statusMetrics.backoff(result.ok ? 0 : delayMs / 1000);
    try {
      events.emit('scheduled', { delayMs, backoff: !result.ok });
    } catch (error) {
      logger.error({ err: error }, 'scheduled listener threw');
    }
  };

  const tick = () => {
    timer = undefined;
    const current = pollSafely();
    inFlight = current;
    void current.then((result) => {
      inFlight = undefined;
      if (running) schedule(result);
    });
  };

  return {
    events,
    pollOnce,
    start() {
      if (running) return;
      running = true;
      tick();
    },
    async stop() {
      running = false;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await inFlight;
      await healthJoin?.settled();
      draHealth?.close();
    },
    readiness: () => pollReadiness({ lastSuccessAt, lastFailure, staleAfterMs, now: clock.now() }),
  };
}
