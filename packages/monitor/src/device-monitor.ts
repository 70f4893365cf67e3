import { status } from '@grpc/grpc-js';
import type { podresources } from '@kdp/api';
import { EventEmitter } from 'node:events';
import type { Registry } from 'prom-client';
import { createBackoff, type BackoffOptions } from './backoff';
import { systemClock, type Clock } from './clock';
import { createDeviceMetrics, deviceHealthKey } from './device-metrics';
import { silentLogger, type Logger } from './logger';
import { buildNodeSnapshot, type NodeSnapshot } from './node-snapshot';
import type { DeviceHealth, EndpointScrape, PluginHealthScraper } from './plugin-health-scraper';
import { grpcCode, grpcCodeName, type PodResourcesClient } from './pod-resources-client';
import { createStatusMetrics, type PodResourcesMethod } from './status-metrics';

/** Options of {@link createDeviceMonitor}. */
export interface DeviceMonitorOptions {
  client: PodResourcesClient;
  registry: Registry;
  /** Delay between successful polls (default 1000 ms). */
  intervalMs?: number;
  /** Backoff after a failed poll (RESOURCE_EXHAUSTED or any other error); never shorter than the interval. */
  backoff?: BackoffOptions;
  /** Plugin metrics endpoints to join device health from; absent = no health join. */
  healthScraper?: PluginHealthScraper;
  /** Readiness turns false when no poll succeeded for this long (default max(10 × interval, 30 s)). */
  staleAfterMs?: number;
  clock?: Clock;
  logger?: Logger;
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
  /** Ready once a poll succeeded within the staleness window; `reason` says why not. */
  readiness(): { ready: boolean; reason: string };
  readonly events: EventEmitter<DeviceMonitorEvents>;
}

/** Creates the polling loop that turns pod-resources answers (and plugin health) into metrics. */
export function createDeviceMonitor(options: DeviceMonitorOptions): DeviceMonitor {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const intervalMs = options.intervalMs ?? 1_000;
  const staleAfterMs = options.staleAfterMs ?? Math.max(10 * intervalMs, 30_000);
  const backoff = createBackoff({ initialMs: Math.max(intervalMs, 500), ...options.backoff });
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
  const endpointDown = new Set<string>();

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
      statusMetrics.pluginScrape(result.endpoint, result.ok, clock.now());
      if (!result.ok) {
        if (!endpointDown.has(result.endpoint))
          logger.warn('plugin metrics scrape failed', { endpoint: result.endpoint, error: result.error });
        endpointDown.add(result.endpoint);
        continue;
      }
      if (endpointDown.delete(result.endpoint))
        logger.info('plugin metrics scrape recovered', { endpoint: result.endpoint });
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
      .catch((error: unknown) => logger.error('plugin health scrape crashed', { error: String(error) }))
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
      if (failing) logger.info('pod-resources API answering again');
      failing = false;
    } else {
      lastFailure = `${result.method}: ${result.code}: ${result.message}`;
      (failing ? logger.debug : logger.warn)('pod-resources poll failed', {
        method: result.method,
        code: result.code,
        error: result.message,
      });
      failing = true;
    }
    try {
      events.emit('poll', result);
    } catch (error) {
      logger.error('poll listener threw', { error: String(error) });
    }
    return result;
  };

  // The loop must outlive anything: a throwing event listener or metrics call only costs one poll.
  const pollSafely = async (): Promise<PollResult> => {
    try {
      return await pollOnce();
    } catch (error) {
      logger.error('poll crashed; retrying with backoff', { error: String(error) });
      return { ok: false, method: 'List', code: 'INTERNAL', message: String(error) };
    }
  };

  const schedule = (result: PollResult) => {
    const delayMs = result.ok ? intervalMs : Math.max(intervalMs, backoff.next());
    if (result.ok) backoff.reset();
    timer = clock.setTimeout(tick, delayMs);
    statusMetrics.backoff(result.ok ? 0 : delayMs / 1000);
    try {
      events.emit('scheduled', { delayMs, backoff: !result.ok });
    } catch (error) {
      logger.error('scheduled listener threw', { error: String(error) });
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
          ready: false,
          reason: lastFailure ? `no successful poll yet (${lastFailure})` : 'no successful poll yet',
        };
      const age = clock.now() - lastSuccessAt;
      if (age > staleAfterMs)
        return {
          ready: false,
          reason: `last successful poll ${Math.round(age / 1000)} s ago (${lastFailure})`,
        };
      return { ready: true, reason: 'ok' };
    },
  };
}
