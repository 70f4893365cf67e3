import { parseCliArgs, parsePluginMetricsUrl } from './parse-cli-args';

describe('parseCliArgs', () => {
  it('applies the documented defaults', () => {
    expect(parseCliArgs([])).toEqual({
      ok: true,
      command: {
        kind: 'run',
        podResourcesSocket: '/var/lib/kubelet/pod-resources/kubelet.sock',
        metricsAddress: '0.0.0.0:9410',
        intervalMs: 1000,
        pluginMetrics: [],
        logLevel: 'info',
      },
    });
  });

  it('reads every flag, in both spellings, and splits and de-duplicates plugin URLs', () => {
    const result = parseCliArgs([
      '--pod-resources-socket=/tmp/pr.sock',
      '--metrics-address',
      '127.0.0.1:0',
      '--interval=250',
      '--plugin-metrics',
      'http://10.0.0.1:9401,http://10.0.0.2:9402/m',
      '--plugin-metrics=http://10.0.0.1:9401/metrics',
      '--log-level=debug',
    ]);
    expect(result).toEqual({
      ok: true,
      command: {
        kind: 'run',
        podResourcesSocket: '/tmp/pr.sock',
        metricsAddress: '127.0.0.1:0',
        intervalMs: 250,
        pluginMetrics: ['http://10.0.0.1:9401/metrics', 'http://10.0.0.2:9402/m'],
        logLevel: 'debug',
      },
    });
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /Unexpected argument 'extra'/],
    [['--interval=5'], /--interval: '5'/],
    [['--interval=1e3'], /--interval: '1e3'/],
    [['--metrics-address=9410'], /--metrics-address: "9410" is not HOST:PORT/],
    [['--metrics-address=:70000'], /--metrics-address: ":70000": port 70000 is out of range/],
    [['--metrics-address=::1:9410'], /--metrics-address: "::1:9410" is not HOST:PORT/],
    [['--log-level=loud'], /--log-level: 'loud' is not one of trace, debug, info, warn, error/],
    [['--plugin-metrics=ftp://x/metrics'], /--plugin-metrics: 'ftp:\/\/x\/metrics'/],
    [['--plugin-metrics=http://u:p@x/metrics'], /without credentials/],
    [['--pod-resources-socket='], /empty path/],
    [[`--pod-resources-socket=/${'x'.repeat(107)}`], /longer than the 107 bytes/],
  ])('rejects %j', (argv, message) => {
    const result = parseCliArgs(argv);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(message);
  });

  it('answers --help and --version before validating anything else', () => {
    expect(parseCliArgs(['--interval=1', '--help'])).toEqual({ ok: true, command: { kind: 'help' } });
    expect(parseCliArgs(['--version'])).toEqual({ ok: true, command: { kind: 'version' } });
  });
});

describe('--metrics-address and parsePluginMetricsUrl', () => {
  it('takes hosts, IPv6 in brackets, and an empty host (every interface) as given', () => {
    for (const address of ['[::1]:9410', ':9410', 'localhost:0'])
      expect(parseCliArgs([`--metrics-address=${address}`])).toMatchObject({
        ok: true,
        command: { metricsAddress: address },
      });
  });

  it('adds /metrics only to a bare host:port URL', () => {
    expect(parsePluginMetricsUrl('http://h:1')).toBe('http://h:1/metrics');
    expect(parsePluginMetricsUrl('http://h:1/')).toBe('http://h:1/');
    expect(parsePluginMetricsUrl('not a url')).toBeUndefined();
  });
});
