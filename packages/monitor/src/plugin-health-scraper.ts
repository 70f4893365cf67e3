import { parsePrometheusText } from './parse-prometheus-text';

/** The metric every kdp plugin exports per advertised device: 1 Healthy, 0 Unhealthy. */
export const deviceHealthMetric = 'kdp_device_health';

/** One device's health as one plugin endpoint reported it. */
export interface DeviceHealth {
  resource: string;
  device: string;
  healthy: boolean;
}

/**
 * The outcome of scraping one endpoint. A failure is `absent` when the connection was refused: nothing listens
 * on that port of the node (that plugin does not run there, or its pod is between restarts), as opposed to a
 * plugin that is there but answers wrongly, slowly or not at all.
 */
export type EndpointScrape =
  | { endpoint: string; ok: true; devices: DeviceHealth[] }
  | { endpoint: string; ok: false; absent: boolean; error: string };

/** Fetches a URL's body as text, rejecting on a non-2xx answer, a timeout or a body over the limit. */
export type FetchText = (url: string, timeoutMs: number, maxBytes: number) => Promise<string>;

/** Options of {@link createPluginHealthScraper}. */
export interface PluginHealthScraperOptions {
  /** Metrics URLs of the plugins on this node. */
  endpoints: readonly string[];
  /** Per-endpoint timeout (default 2 s). */
  timeoutMs?: number;
  /** Largest body read (default 4 MiB). */
  maxBytes?: number;
  /** HTTP getter (default: global fetch); tests inject their own. */
  fetchText?: FetchText;
}

/** Scrapes every configured endpoint concurrently; one endpoint failing never fails the others. */
export interface PluginHealthScraper {
  readonly endpoints: readonly string[];
  scrape(): Promise<EndpointScrape[]>;
}

/** Plain fetch with a timeout and a body-size limit. */
export const fetchText: FetchText = async (url, timeoutMs, maxBytes) => {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'text/plain;version=0.0.4' },
    redirect: 'error',
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`body larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** Reads the `kdp_device_health` samples out of an exposition; samples without both labels are skipped. */
export function deviceHealthFromText(text: string): DeviceHealth[] {
  const out: DeviceHealth[] = [];
  for (const sample of parsePrometheusText(text).samples) {
    const { resource, device } = sample.labels;
    if (sample.name !== deviceHealthMetric || resource === undefined || device === undefined) continue;
    if (Number.isNaN(sample.value)) continue;
    out.push({ resource, device, healthy: sample.value >= 1 });
  }
  return out;
}

/** Creates a scraper of the plugins' `kdp_device_health` series. */
export function createPluginHealthScraper(options: PluginHealthScraperOptions): PluginHealthScraper {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const get = options.fetchText ?? fetchText;
  const scrapeOne = async (endpoint: string): Promise<EndpointScrape> => {
    try {
      return { endpoint, ok: true, devices: deviceHealthFromText(await get(endpoint, timeoutMs, maxBytes)) };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const message = error instanceof Error ? error.message : String(error);
      return {
        endpoint,
        ok: false,
        absent: cause === 'ECONNREFUSED',
        error: cause ? `${message} (${cause})` : message,
      };
    }
  };
  return {
    endpoints: options.endpoints,
    scrape: () => Promise.all(options.endpoints.map(scrapeOne)),
  };
}
