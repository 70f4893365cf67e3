import { status } from '@grpc/grpc-js';
import type { podresources } from '@kdp/api';
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
import { createDeviceMetrics, deviceHealthKey } from './device-metrics';
import { buildNodeSnapshot, type NodeSnapshot } from './node-snapshot';
import type { DeviceHealth, EndpointScrape, PluginHealthScraper } from './plugin-health-scraper';
import { grpcCode, grpcCodeName, type PodResourcesClient } from './pod-resources-client';
import { createStatusMetrics, type PluginScrapeOutcome, type PodResourcesMethod } from './status-metrics';

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
  /** Readiness turns false when no poll succeeded for this long (default max(10 × interval, 30 s)). */
  staleAfterMs?: number;
  clock?: Clock;
  /** Where to log (pino's `(fields, message)` convention); default: nowhere. */
  logger?: LifecycleLogger;
  version?: string;
}

/** The result of one poll of the pod-resources API. */
export type PollResult =
  | { ok: true; snapshot: NodeSnapshot }
  | { ok: false; method: PodResourcesMethod; code: string; message: string };

/** Events: `poll` (PollResult), `scheduled` ({ delayMs, backoff: boolean }), `health` (EndpointScrape[]). */
export interface DeviceMonitorEvents {
  poll: [PollResult];
  scheduled: [{ delayMs: number; backoff: boolean }];
  health: [EndpointScrape[]];
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
  let allocatableSupported = true;
  let lastSuccessAt: number | undefined;
  let lastFailure = '';
  let failing = false;
  let timer: unknown;
  let running = false;
  let inFlight: Promise<PollResult> | undefined;
  let healthInFlight: Promise<void> | undefined;
  const endpointState = new Map<string, PluginScrapeOutcome>();

  const render = () => {
    if (snapshot) deviceMetrics.render(snapshot, health);
  };

  const timed = async <T>(method: PodResourcesMethod, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const result = await call();
      statusMetrics.podResourcesCall(method, 'OK', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      statusMetrics.podResourcesCall(
        method,
        grpcCodeName(grpcCode(error)),
        (performance.now() - started) / 1000,
      );
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { method });
    } finally {
      statusMetrics.reconnects(Math.max(0, options.client.channelsOpened - 1));
    }
  };

  const scrapeHealth = async (scraper: PluginHealthScraper) => {
    const results = await scraper.scrape();
    const next = new Map<string, DeviceHealth>();
    for (const result of results) {
      const outcome: PluginScrapeOutcome = result.ok ? 'ok' : result.absent ? 'absent' : 'failed';
      const previous = endpointState.get(result.endpoint);
      endpointState.set(result.endpoint, outcome);
      statusMetrics.pluginScrape(result.endpoint, outcome, clock.now());
      if (!result.ok) {
        // Once per change of state, not once per poll.
        if (outcome === 'failed' && previous !== 'failed')
          logger.warn({ endpoint: result.endpoint, error: result.error }, 'plugin metrics scrape failed');
        if (outcome === 'absent' && previous !== 'absent')
          logger.info(
            { endpoint: result.endpoint, error: result.error },
            'no plugin listening at this endpoint (none on this node, or restarting)',
          );
        continue;
      }
      if (previous === 'failed')
        logger.info({ endpoint: result.endpoint }, 'plugin metrics scrape recovered');
      if (previous === 'absent')
        logger.info({ endpoint: result.endpoint }, 'plugin metrics endpoint answering');
      for (const device of result.devices) {
        const key = deviceHealthKey(device.resource, device.device);
        // Two endpoints naming one device: unhealthy wins.
        if (!next.get(key) || !device.healthy) next.set(key, device);
      }
    }
    health = next;
    render();
    events.emit('health', results);
  };

  const startHealthScrape = () => {
    const scraper = options.healthScraper;
    if (!scraper || healthInFlight) return;
    healthInFlight = scrapeHealth(scraper)
      .catch((error: unknown) => logger.error({ err: error }, 'plugin health scrape crashed'))
      .finally(() => {
        healthInFlight = undefined;
      });
  };

  const pollPodResources = async (): Promise<PollResult> => {
    try {
      let allocatable: podresources.AllocatableResourcesResponse | undefined;
      if (allocatableSupported) {
        try {
          allocatable = await timed('GetAllocatableResources', () =>
            options.client.getAllocatableResources(),
          );
        } catch (error) {
          if (grpcCode(error) !== status.UNIMPLEMENTED) throw error;
          allocatableSupported = false;
          logger.warn(
            {},
            'GetAllocatableResources is not served by this kubelet; allocatable and unallocated metrics are off',
          );
        }
      }
      const list = await timed('List', () => options.client.list());
      snapshot = buildNodeSnapshot(allocatable, list);
      render();
      return { ok: true, snapshot };
    } catch (error) {
      const method = ((error as { method?: PodResourcesMethod }).method ?? 'List') as PodResourcesMethod;
      return {
        ok: false,
        method,
        code: grpcCodeName(grpcCode(error)),
        message: error instanceof Error ? error.message : String(error),
      };
    }
  };

  const pollOnce = async (): Promise<PollResult> => {
    startHealthScrape();
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
      await healthInFlight;
    },
    readiness() {
      if (lastSuccessAt === undefined)
        return {
          ok: false,
          message: lastFailure ? `no successful poll yet (${lastFailure})` : 'no successful poll yet',
        };
      const age = clock.now() - lastSuccessAt;
      if (age > staleAfterMs)
        return {
          ok: false,
          message: `last successful poll ${Math.round(age / 1000)} s ago (${lastFailure})`,
        };
      return { ok: true, message: 'ok' };
    },
  };
}
