import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPluginHealthScraper, deviceHealthFromText } from './plugin-health-scraper';
import { startPluginMetricsStub, type PluginMetricsStub } from './testing/plugin-metrics-stub';

describe('deviceHealthFromText', () => {
  it('keeps only kdp_device_health samples with resource and device labels', () => {
    const text = [
      'kdp_device_health{resource="r",device="a"} 1',
      'kdp_device_health{resource="r",device="b"} 0',
      'kdp_device_health{resource="r"} 1',
      'kdp_device_health{resource="r",device="c"} NaN',
      'kdp_devices{resource="r",health="Healthy"} 1',
      'garbage {{{',
    ].join('\n');
    expect(deviceHealthFromText(text)).toEqual([
      { resource: 'r', device: 'a', healthy: true },
      { resource: 'r', device: 'b', healthy: false },
    ]);
  });
});

describe('createPluginHealthScraper', () => {
  let stub: PluginMetricsStub;
  beforeEach(async () => {
    stub = await startPluginMetricsStub('kdp_device_health{resource="r",device="a"} 1\n');
  });
  afterEach(() => stub.close());

  it('reports each endpoint on its own: one down does not fail the other', async () => {
    const down = await startPluginMetricsStub();
    const downUrl = down.url;
    await down.close();
    stub.statusCode = 200;
    const scraper = createPluginHealthScraper({ endpoints: [stub.url, downUrl] });
    const [ok, failed] = await scraper.scrape();
    expect(ok).toEqual({
      endpoint: stub.url,
      ok: true,
      devices: [{ resource: 'r', device: 'a', healthy: true }],
    });
    // Refused: nothing listens there, so the plugin is absent (not on this node), not failing.
    expect(failed).toMatchObject({ endpoint: downUrl, ok: false, absent: true });
    expect(failed?.ok === false && failed.error).toMatch(/ECONNREFUSED/);
  });

  it('fails an endpoint that answers non-2xx or sends more than the limit', async () => {
    stub.statusCode = 500;
    expect(await createPluginHealthScraper({ endpoints: [stub.url] }).scrape()).toEqual([
      { endpoint: stub.url, ok: false, absent: false, error: 'HTTP 500' },
    ]);
    stub.statusCode = 200;
    stub.body = 'x'.repeat(10_000);
    const [big] = await createPluginHealthScraper({ endpoints: [stub.url], maxBytes: 1_000 }).scrape();
    expect(big).toEqual({
      endpoint: stub.url,
      ok: false,
      absent: false,
      error: 'body larger than 1000 bytes',
    });
  });

  it('gives up on an endpoint that never answers', async () => {
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/metrics`;
    try {
      const [result] = await createPluginHealthScraper({ endpoints: [url], timeoutMs: 100 }).scrape();
      expect(result).toMatchObject({ endpoint: url, ok: false, absent: false });
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });
});
