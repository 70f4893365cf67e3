import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnPlugin } from '../spawn-plugin';
import { metricsUrlOf, scanCounts } from './scan-counts';

describe('metricsUrlOf and scanCounts', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_, res) =>
      res.end(
        [
          '# HELP kdp_scans_total Full scans per plugin',
          'kdp_scans_total{plugin="fpga",trigger="start"} 1',
          'kdp_scans_total{plugin="fpga",trigger="probe"} 12',
          'kdp_scans_total{plugin="gpu",trigger="probe"} 99',
          'kdp_change_probes_total{plugin="fpga",outcome="unchanged"} 240',
          'kdp_change_probes_total{plugin="fpga",outcome="changed"} 12',
          'kdp_grpc_requests_total{plugin="fpga",method="Allocate"} 3',
          '',
        ].join('\n'),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('reads one plugin’s scan and probe counters by label', async () => {
    expect(await scanCounts(url, 'fpga')).toEqual({
      'scans:start': 1,
      'scans:probe': 12,
      'probes:unchanged': 240,
      'probes:changed': 12,
    });
    expect(await scanCounts(url, 'usb')).toEqual({});
  });

  it('finds the URL in a plugin’s log once it is written, and fails naming the log when it exits without it', async () => {
    const line = JSON.stringify({
      level: 'info',
      url: 'http://127.0.0.1:4321',
      msg: 'serving /metrics, /healthz and /readyz',
    });
    const later = spawnPlugin('-e', [
      `console.error('starting'); setTimeout(() => console.error(${JSON.stringify(line)}), 200)`,
    ]);
    await expect(metricsUrlOf(later)).resolves.toBe('http://127.0.0.1:4321/metrics');
    await later.exited;
    const silent = spawnPlugin('-e', ['console.error("no metrics here")']);
    await silent.exited;
    await expect(metricsUrlOf(silent)).rejects.toThrow(
      /no metrics URL in the plugin's log:\nno metrics here/,
    );
  }, 30_000);
});
