import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config/config-error';
import type { DiscoverResult } from './discover-result';
import { runPluginCli, type PluginCliOptions, type ServeContext } from './run-plugin-cli';

const schema = z.object({
  pollIntervalMs: z.number().int().positive().default(1000),
  names: z.array(z.string()).default([]),
});
type Config = z.output<typeof schema>;

const sample: DiscoverResult = {
  resources: [
    {
      resourceName: 'example.com/dev',
      devices: [
        {
          id: 'dev-0',
          health: 'Healthy',
          numaNodes: [0],
          pciAddress: '0000:3b:00.0',
          deviceSpecs: [{ containerPath: '/dev/x0', hostPath: '/dev/x0', permissions: 'rw' }],
          attributes: { vendor: '0x8086' },
        },
        { id: 'dev-1', health: 'Unhealthy' },
      ],
    },
    { resourceName: 'example.com/other', devices: [] },
  ],
  excluded: [
    {
      path: '/sys/bus/pci/devices/0000:5e:00.0',
      reason: 'driver vfio-pci does not match selector drivers=[x]',
    },
  ],
  warnings: ['dev-1: numa_node unreadable'],
};

let root: string;
let pluginDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kdp-cli-'));
  pluginDir = join(root, 'dp');
  await writeFile(join(root, 'file'), '');
  await mkdir(pluginDir);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function harness(argv: string[], overrides: Partial<PluginCliOptions<typeof schema>> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const exits: number[] = [];
  const options: PluginCliOptions<typeof schema> = {
    name: 'Test device plugin',
    binary: 'test-device-plugin',
    version: '1.2.3',
    argv,
    configSchema: schema,
    discover: async () => sample,
    serve: async (ctx) => {
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    },
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    exit: (code) => exits.push(code),
    signals,
    ...overrides,
  };
  return {
    run: () => runPluginCli(options),
    signals,
    exits,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    logs: () =>
      err
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Waits for a condition on events, polling, bounded by a generous timeout. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('runPluginCli: --help, --version and usage errors', () => {
  it('prints the usage with every common flag and its default', async () => {
    const h = harness(['--help']);
    expect(await h.run()).toBe(0);
    expect(h.exits).toEqual([0]);
    expect(h.stdout()).toBe(
      [
        'Test device plugin',
        '',
        'Usage:',
        '  test-device-plugin serve    [flags]                          run the device plugin: discover, serve, register, watch',
        '  test-device-plugin discover [flags] [--output json|table]    scan once, print the result, exit (no kubelet needed)',
        '  test-device-plugin --version | --help',
        '',
        'Flags:',
        '  --sysfs-root DIR             where sysfs is read [/sys]',
        '  --dev-root DIR               where device nodes are looked up [/dev]',
        '  --proc-root DIR              where procfs is read [/proc]',
        "  --device-plugin-dir DIR      the kubelet's socket directory [/var/lib/kubelet/device-plugins]",
        '  --config FILE                YAML or JSON configuration; absent = documented defaults',
        '  --cdi-dir DIR                where CDI specs are written when CDI is enabled [/var/run/cdi]',
        '  --metrics-address HOST:PORT  serve /metrics, /healthz, /readyz; off when absent',
        '  --log-level LEVEL            trace|debug|info|warn|error; JSON logs on stderr [info]',
        '  --output json|table          discover only: output format [table]',
        '',
        'Exit codes: 0 done (discover: the scan ran), 1 failure, 2 usage or configuration error.',
        '',
      ].join('\n'),
    );
    expect(h.stderr()).toBe('');
    expect(await harness(['serve', '-h']).run()).toBe(0);
  });

  it("lists the plugin's extra flags with their defaults", async () => {
    const h = harness(['--help'], {
      extraFlags: {
        'device-list-strategy': {
          type: 'string',
          valueName: 'STRATEGY',
          description: 'how devices reach containers',
          default: 'envvar',
        },
        'fail-on-init-error': { type: 'boolean', description: 'exit when discovery fails' },
      },
    });
    expect(await h.run()).toBe(0);
    expect(h.stdout()).toContain(
      '  --device-list-strategy STRATEGY  how devices reach containers [envvar]\n',
    );
    expect(h.stdout()).toContain('  --fail-on-init-error             exit when discovery fails\n');
  });

  it('prints the version', async () => {
    const h = harness(['--version']);
    expect(await h.run()).toBe(0);
    expect(h.stdout()).toBe('test-device-plugin 1.2.3\n');
  });

  it.each([
    [[], 'missing command: serve or discover'],
    [['start'], 'unknown command "start": expected serve or discover'],
    [['discover', 'extra'], 'unexpected argument "extra"'],
    [['discover', '--nope'], "Unknown option '--nope'"],
    [['discover', '--config'], "Option '--config <value>' argument missing"],
    [['discover', '--config', '--log-level', 'info'], "Option '--config' argument is ambiguous"],
    [['discover', '--version=3'], "Option '--version' does not take an argument"],
    [
      ['discover', '--log-level', 'verbose'],
      '--log-level "verbose" is not one of trace, debug, info, warn, error',
    ],
    [['discover', '--log-level='], '--log-level must not be empty'],
    [
      ['discover', '--metrics-address', '9100'],
      '--metrics-address "9100" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)',
    ],
    [
      ['discover', '--metrics-address', 'h:70000'],
      '--metrics-address "h:70000": port 70000 is out of range 0-65535',
    ],
    [['discover', '--output', 'xml'], '--output "xml" is not json or table'],
    [['serve', '--output', 'json'], '--output applies to discover only'],
    [['discover', '--sysfs-root', '/nonexistent-kdp'], '--sysfs-root /nonexistent-kdp: no such directory'],
    [['discover', '--dev-root', '/nonexistent-kdp'], '--dev-root /nonexistent-kdp: no such directory'],
    [['discover', '--proc-root', '/nonexistent-kdp'], '--proc-root /nonexistent-kdp: no such directory'],
  ])('exits 2 for %j with the message and the usage on stderr', async (argv, message) => {
    const h = harness(argv);
    expect(await h.run()).toBe(2);
    expect(h.stderr()).toBe(`test-device-plugin: ${message}\n\n${await helpText()}`);
    expect(h.stdout()).toBe('');
  });

  it('checks that the roots are directories, and the socket directory for serve only', async () => {
    const file = join(root, 'file');
    const h = harness(['discover', '--sysfs-root', file]);
    expect(await h.run()).toBe(2);
    expect(h.stderr()).toMatch(new RegExp(`^test-device-plugin: --sysfs-root ${file}: not a directory\n`));
    expect(await harness(['discover', '--device-plugin-dir', '/nonexistent-kdp']).run()).toBe(0);
    const s = harness(['serve', '--device-plugin-dir', '/nonexistent-kdp']);
    expect(await s.run()).toBe(2);
    expect(s.stderr()).toMatch(
      /^test-device-plugin: --device-plugin-dir \/nonexistent-kdp: no such directory\n/,
    );
  });
});

async function helpText(): Promise<string> {
  const h = harness(['--help']);
  await h.run();
  return h.stdout();
}

describe('runPluginCli: discover', () => {
  it('prints the contract JSON document and nothing else on stdout', async () => {
    const h = harness(['discover', '--output', 'json']);
    expect(await h.run()).toBe(0);
    expect(JSON.parse(h.stdout())).toEqual({
      resources: [
        {
          resourceName: 'example.com/dev',
          devices: [
            {
              id: 'dev-0',
              health: 'Healthy',
              numaNodes: [0],
              pciAddress: '0000:3b:00.0',
              deviceSpecs: [{ containerPath: '/dev/x0', hostPath: '/dev/x0', permissions: 'rw' }],
              attributes: { vendor: '0x8086' },
            },
            {
              id: 'dev-1',
              health: 'Unhealthy',
              numaNodes: [],
              pciAddress: null,
              deviceSpecs: [],
              attributes: {},
            },
          ],
        },
        { resourceName: 'example.com/other', devices: [] },
      ],
      excluded: [
        {
          path: '/sys/bus/pci/devices/0000:5e:00.0',
          reason: 'driver vfio-pci does not match selector drivers=[x]',
        },
      ],
      warnings: ['dev-1: numa_node unreadable'],
    });
  });

  it('prints a table by default', async () => {
    const h = harness(['discover']);
    expect(await h.run()).toBe(0);
    expect(h.stdout()).toBe(
      [
        'RESOURCE           DEVICE  HEALTH     NUMA  PCI           DEVICE NODES',
        'example.com/dev    dev-0   Healthy    0     0000:3b:00.0  /dev/x0',
        'example.com/dev    dev-1   Unhealthy  -     -             -',
        'example.com/other  (none)',
        '',
        'EXCLUDED',
        'PATH                               REASON',
        '/sys/bus/pci/devices/0000:5e:00.0  driver vfio-pci does not match selector drivers=[x]',
        '',
        'WARNINGS',
        '- dev-1: numa_node unreadable',
        '',
      ].join('\n'),
    );
  });

  it('exits 0 for a scan that found nothing', async () => {
    const h = harness(['discover', '--output=json'], { discover: async () => ({ resources: [] }) });
    expect(await h.run()).toBe(0);
    expect(JSON.parse(h.stdout())).toEqual({ resources: [], excluded: [], warnings: [] });
    const t = harness(['discover'], { discover: async () => ({ resources: [] }) });
    expect(await t.run()).toBe(0);
    expect(t.stdout()).toBe('no resources\n');
  });

  it('hands the parsed flags, the extra flags and the configuration to discover', async () => {
    const file = join(root, 'c.yaml');
    await writeFile(file, 'pollIntervalMs: 250\n');
    let seen: unknown;
    const h = harness(
      [
        'discover',
        '--sysfs-root',
        root,
        '--dev-root',
        root,
        '--proc-root',
        root,
        '--device-plugin-dir',
        pluginDir,
        '--config',
        file,
        '--cdi-dir',
        join(root, 'cdi'),
        '--metrics-address',
        ':9100',
        '--log-level',
        'debug',
        '--strategy',
        'cdi',
        '--fail-on-init-error',
      ],
      {
        extraFlags: {
          strategy: { type: 'string', description: 'how devices are passed', default: 'envvar' },
          'fail-on-init-error': { type: 'boolean', description: 'exit when discovery fails' },
          mode: { type: 'string', description: 'unused', default: 'x' },
        },
        discover: async (ctx) => {
          seen = { flags: ctx.flags, extra: ctx.extra, config: ctx.config };
          ctx.logger.debug('scanning');
          return { resources: [] };
        },
      },
    );
    expect(await h.run()).toBe(0);
    expect(seen).toEqual({
      flags: {
        sysfsRoot: root,
        devRoot: root,
        procRoot: root,
        devicePluginDir: pluginDir,
        config: file,
        cdiDir: join(root, 'cdi'),
        metricsAddress: ':9100',
        logLevel: 'debug',
      },
      extra: { strategy: 'cdi', 'fail-on-init-error': true, mode: 'x' },
      config: { pollIntervalMs: 250, names: [] },
    });
    expect(h.logs()).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'scanning', name: 'test-device-plugin' }),
    ]);
  });

  it('uses the defaults when no --config is given', async () => {
    let seen: Config | undefined;
    const h = harness(['discover'], {
      defaults: { names: ['a'] },
      discover: async (ctx) => {
        seen = ctx.config;
        return { resources: [] };
      },
    });
    expect(await h.run()).toBe(0);
    expect(seen).toEqual({ pollIntervalMs: 1000, names: ['a'] });
  });

  it('exits 2 naming the file, the field and the problem for a bad configuration', async () => {
    const file = join(root, 'c.yaml');
    await writeFile(file, 'pollIntervalMs: 250\nnames: [a, 3]\n');
    const h = harness(['discover', '--config', file]);
    expect(await h.run()).toBe(2);
    expect(h.stderr()).toBe(`test-device-plugin: ${file}: names[1]: expected string, received number\n`);
    expect(h.stdout()).toBe('');
    const missing = harness(['discover', '--config', join(root, 'nope.yaml')]);
    expect(await missing.run()).toBe(2);
    expect(missing.stderr()).toBe(`test-device-plugin: ${join(root, 'nope.yaml')}: file not found\n`);
  });

  it('reports unknown keys as warnings in the output under the warn policy', async () => {
    const file = join(root, 'c.yaml');
    await writeFile(file, 'pollIntervalMs: 250\nresourcePrefix: x\n');
    const h = harness(['discover', '--config', file, '--output', 'json'], { unknownKeys: 'warn' });
    expect(await h.run()).toBe(0);
    expect(JSON.parse(h.stdout()).warnings).toEqual([
      `${file}: resourcePrefix: unknown key; ignored`,
      'dev-1: numa_node unreadable',
    ]);
  });

  it('exits 1 when the scan fails or returns a bad health', async () => {
    const h = harness(['discover'], {
      discover: async () => {
        throw new Error('sysfs vanished');
      },
    });
    expect(await h.run()).toBe(1);
    expect(h.stderr()).toMatch(/test-device-plugin: sysfs vanished\n$/);
    expect(h.logs()).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'discover failed',
        err: expect.objectContaining({ message: 'sysfs vanished' }),
      }),
    ]);
    const bad = harness(['discover'], {
      discover: async () => ({
        resources: [{ resourceName: 'a.com/b', devices: [{ id: 'x', health: 'healthy' as 'Healthy' }] }],
      }),
    });
    expect(await bad.run()).toBe(1);
    expect(bad.stderr()).toMatch(
      /device x of a.com\/b: health "healthy" is neither Healthy nor Unhealthy\n$/,
    );
  });
});

describe('runPluginCli: serve', () => {
  it('runs serve until SIGTERM, then exits 0 and releases the signals', async () => {
    let ctx: ServeContext<Config> | undefined;
    const h = harness(['serve', '--device-plugin-dir', pluginDir], {
      serve: async (c) => {
        ctx = c;
        await new Promise<void>((resolve) =>
          c.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      },
    });
    const done = h.run();
    await until(() => ctx !== undefined, 'serve to start');
    expect(ctx?.config).toEqual({ pollIntervalMs: 1000, names: [] });
    expect(ctx?.metricsServer).toBeUndefined();
    expect(h.signals.listenerCount('SIGTERM')).toBe(1);
    h.signals.emit('SIGHUP'); // no --config: logged, and the process keeps running
    h.signals.emit('SIGTERM');
    expect(await done).toBe(0);
    expect(ctx?.signal.aborted).toBe(true);
    for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) expect(h.signals.listenerCount(s)).toBe(0);
    expect(h.logs().map((l) => l['msg'])).toEqual([
      'starting',
      'SIGHUP received; no --config file to reload',
      'shutting down',
      'stopped',
    ]);
  });

  it('serves metrics and probes on --metrics-address (port 0) until shutdown', async () => {
    let ctx: ServeContext<Config> | undefined;
    const h = harness(['serve', '--device-plugin-dir', pluginDir, '--metrics-address', '127.0.0.1:0'], {
      serve: async (c) => {
        ctx = c;
        c.metrics.setRegistered('example.com/dev', false);
        await new Promise<void>((resolve) =>
          c.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      },
    });
    const done = h.run();
    await until(() => ctx !== undefined, 'serve to start');
    const url = ctx?.metricsServer?.url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.logs()).toContainEqual(
      expect.objectContaining({ msg: 'serving /metrics, /healthz and /readyz', url }),
    );
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([503, 'not registered: example.com/dev\n']);
    ctx?.metrics.registered('example.com/dev');
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    ctx?.setReadiness(() => ({ ok: false, message: 'custom' }));
    expect(await (await fetch(`${url}/readyz`)).text()).toBe('custom\n');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('kdp_build_info{plugin="test-device-plugin",version="1.2.3"');
    expect(text).toContain('process_resident_memory_bytes');
    h.signals.emit('SIGINT');
    expect(await done).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('exits 2 without serving when the configuration is bad at start', async () => {
    const file = join(root, 'c.yaml');
    await writeFile(file, 'pollIntervalMs: 0\n');
    const serve = jest.fn(async () => undefined);
    const h = harness(['serve', '--device-plugin-dir', pluginDir, '--config', file], { serve });
    expect(await h.run()).toBe(2);
    expect(h.stderr()).toBe(
      `test-device-plugin: ${file}: pollIntervalMs: Too small: expected number to be >0\n`,
    );
    expect(serve).not.toHaveBeenCalled();
  });

  it('reloads valid → invalid (kept, logged) → valid on SIGHUP and file change', async () => {
    const file = join(root, 'c.yaml');
    await writeFile(file, 'pollIntervalMs: 100\n');
    let ctx: ServeContext<Config> | undefined;
    const changes: number[] = [];
    const h = harness(['serve', '--device-plugin-dir', pluginDir, '--config', file], {
      configDebounceMs: 20,
      serve: async (c) => {
        ctx = c;
        c.onConfigChange((change) => changes.push(change.value.pollIntervalMs));
        await new Promise<void>((resolve) =>
          c.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      },
    });
    const done = h.run();
    await until(() => ctx !== undefined, 'serve to start');
    expect(ctx?.config.pollIntervalMs).toBe(100);

    await writeFile(`${file}.new`, 'pollIntervalMs: -1\n');
    await rename(`${file}.new`, file);
    await until(
      () =>
        h.logs().some((l) => l['msg'] === 'configuration reload failed; keeping the running configuration'),
      'the reload error',
    );
    expect(h.logs()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        problem: `${file}: pollIntervalMs: Too small: expected number to be >0`,
        config: file,
      }),
    );
    expect(ctx?.config.pollIntervalMs).toBe(100);

    await writeFile(`${file}.new`, 'pollIntervalMs: 300\n');
    await rename(`${file}.new`, file);
    await until(() => changes.length === 1, 'the reload');
    expect(ctx?.config.pollIntervalMs).toBe(300);

    h.signals.emit('SIGHUP');
    await until(() => changes.length === 2, 'the SIGHUP reload');
    expect(changes).toEqual([300, 300]);
    const metrics = await ctx?.metrics.registry.metrics();
    expect(metrics).toContain('kdp_config_reloads_total{outcome="ok"} 2');
    expect(metrics).toContain('kdp_config_reloads_total{outcome="error"} 1');

    h.signals.emit('SIGTERM');
    expect(await done).toBe(0);
  });

  it('exits 1 when serve fails, 2 when it fails on configuration, 1 when the metrics port is taken', async () => {
    const failing = harness(['serve', '--device-plugin-dir', pluginDir], {
      serve: async () => {
        throw new Error('cannot bind socket');
      },
    });
    expect(await failing.run()).toBe(1);
    expect(failing.stderr()).toMatch(/test-device-plugin: cannot bind socket\n$/);
    const config = harness(['serve', '--device-plugin-dir', pluginDir], {
      serve: async () => {
        throw new ConfigError('x.yaml', [{ path: 'a', message: 'bad' }]);
      },
    });
    expect(await config.run()).toBe(2);
    expect(config.stderr()).toMatch(/test-device-plugin: x\.yaml: a: bad\n$/);

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const taken = harness([
        'serve',
        '--device-plugin-dir',
        pluginDir,
        '--metrics-address',
        `127.0.0.1:${port}`,
      ]);
      expect(await taken.run()).toBe(1);
      expect(taken.stderr()).toMatch(
        new RegExp(`test-device-plugin: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`),
      );
    } finally {
      blocker.close();
    }
  });
});
