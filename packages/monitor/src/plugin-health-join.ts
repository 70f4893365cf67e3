import type { Clock, LifecycleLogger } from '@kdp/base';
import { deviceHealthKey } from './device-metrics';
import type { DeviceHealth, EndpointScrape, PluginHealthScraper } from './plugin-health-scraper';
import type { PluginScrapeOutcome, StatusMetrics } from './status-metrics';

/** What {@link createPluginHealthJoin} scrapes and where it reports. */
export interface PluginHealthJoinOptions {
  readonly scraper: PluginHealthScraper;
  readonly statusMetrics: StatusMetrics;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  /** Called after every scrape with the device health by {@link deviceHealthKey}, and the scrape results. */
  readonly onHealth: (health: Map<string, DeviceHealth>, results: EndpointScrape[]) => void;
}

/** Scrapes of the plugins' device health, at most one at a time. */
export interface PluginHealthJoin {
  /** Starts a scrape unless one is running. */
  start(): void;
  /** Resolves when no scrape is running. */
  settled(): Promise<void>;
}

/** Creates the plugin health join; each endpoint's change of state is logged once, not once per scrape. */
export function createPluginHealthJoin(options: PluginHealthJoinOptions): PluginHealthJoin {
  const { scraper, statusMetrics, clock, logger } = options;
  const endpointState = new Map<string, PluginScrapeOutcome>();
  let inFlight: Promise<void> | undefined;

  const scrape = async (): Promise<void> => {
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
    options.onHealth(next, results);
  };

  return {
    start() {
      if (inFlight) return;
      inFlight = scrape()
        .catch((error: unknown) => logger.error({ err: error }, 'plugin health scrape crashed'))
        .finally(() => {
          inFlight = undefined;
        });
    },
    async settled() {
      await inFlight;
    },
  };
}
