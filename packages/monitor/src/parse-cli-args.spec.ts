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
        draPluginsDir: '/var/lib/kubelet/plugins',
        logLevel: 'info',
      },
    });
  });

  it('turns DRA health off with an empty --dra-plugins-dir', () => {
    expect(parseCliArgs(['--dra-plugins-dir', ''])).toMatchObject({
      ok: true,
      command: { draPluginsDir: undefined },
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
      '--dra-plugins-dir=/host/plugins/',
    ]);
    expect(result).toEqual({
      ok: true,
      command: {
        kind: 'run',
        podResourcesSocket: '/tmp/pr.sock',
        metricsAddress: '127.0.0.1:0',
        intervalMs: 250,
        pluginMetrics: ['http://10.0.0.1:9401/metrics', 'http://10.0.0.2:9402/m'],
        draPluginsDir: '/host/plugins',
        logLevel: 'debug',
      },
    });
  });

  it('builds http://HOST:PORT/metrics from --plugin-metrics-host and --plugin-metrics-ports, IPv6 in brackets', () => {
    const urls = (argv: string[]) => {
      const result = parseCliArgs(argv);
      return result.ok && result.command.kind === 'run' ? result.command.pluginMetrics : result;
    };
    expect(
      urls([
        '--plugin-metrics-host=10.0.0.1',
        '--plugin-metrics-ports=9401,9402',
        '--plugin-metrics-ports=9405',
      ]),
    ).toEqual([
      'http://10.0.0.1:9401/metrics',
      'http://10.0.0.1:9402/metrics',
      'http://10.0.0.1:9405/metrics',
    ]);
    expect(urls(['--plugin-metrics-host', 'fd00::1', '--plugin-metrics-ports', '9400'])).toEqual([
      'http://[fd00::1]:9400/metrics',
    ]);
    expect(urls(['--plugin-metrics-host=[fd00::1]', '--plugin-metrics-ports=9400'])).toEqual([
      'http://[fd00::1]:9400/metrics',
    ]);
    expect(
      urls([
        '--plugin-metrics=http://node-1.example:9401/metrics',
        '--plugin-metrics-host=node-1.example',
        '--plugin-metrics-ports=9401,9402',
      ]),
    ).toEqual(['http://node-1.example:9401/metrics', 'http://node-1.example:9402/metrics']);
  });

  it.each([
    [['--plugin-metrics-ports=9401'], /--plugin-metrics-ports needs --plugin-metrics-host/],
    [['--plugin-metrics-host=10.0.0.1'], /--plugin-metrics-host needs --plugin-metrics-ports/],
    [['--plugin-metrics-host=10.0.0.1', '--plugin-metrics-ports=,'], /needs --plugin-metrics-ports/],
    [
      ['--plugin-metrics-host=$(NODE_IP)', '--plugin-metrics-ports=9401'],
      /'\$\(NODE_IP\)' is not an IP address or host name \(an unset environment variable\?/,
    ],
    [
      ['--plugin-metrics-host=a_b', '--plugin-metrics-ports=9401'],
      /'a_b' is not an IP address or host name$/,
    ],
    [['--plugin-metrics-host=[node]', '--plugin-metrics-ports=9401'], /'\[node\]' is not an IP address/],
    [
      ['--plugin-metrics-host=h', '--plugin-metrics-ports=0'],
      /--plugin-metrics-ports: '0' is not a port in 1..65535/,
    ],
    [['--plugin-metrics-host=h', '--plugin-metrics-ports=70000'], /'70000' is not a port/],
    [['--plugin-metrics-host=h', '--plugin-metrics-ports=94x1'], /'94x1' is not a port/],
  ])('rejects the plugin host and ports %j', (argv, message) => {
    const result = parseCliArgs(argv);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(message);
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
