import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { z } from 'zod';
import { Code } from '../code';
import { DevicePluginError } from '../device-plugin-error';
import type { PluginDevice } from '../plugin-device';
import { resolveCdiDevices } from '../testing/resolve-cdi-devices';
import { runPluginCommand, startPluginRun, type PluginRun } from '../testing/start-plugin-run';
import { definePlugin, type AnyPluginDefinition, type ResourceSpec } from './define-plugin';
import { flag } from './flags';
import { optimizingCompilers } from '../optimizing-compilers';

// A plugin written on the runtime, for these tests: every file `<kind>.<id>` in --dir is a device of resource
// `<prefix>/<kind>`; the file's content `ok` makes it Healthy, anything else is its problem; a file named
// `FAIL` makes the scan throw. Kind `fancy` offers preferred allocation; `ready` in a device's content also
// makes `needsPrestart` resources require PreStartContainer.
const schema = z.strictObject({
  prefix: z.string().default('example.com'),
  allocated: z.string().optional(),
  prestart: z.array(z.string()).default([]),
});

interface Options {
  readonly holdUntilHealthy?: boolean;
  readonly vanishedGraceMs?: number;
  readonly keepVanished?: 'all' | 'allocated';
  readonly calls?: string[];
}

function testPlugin(options: Options = {}): AnyPluginDefinition {
  const calls = options.calls ?? [];
  return definePlugin({
    name: 'test',
    binary: 'test-device-plugin',
    title: 'Test device plugin',
    version: '1.2.3',
    config: { schema, defaults: { prefix: 'example.com' } },
    flags: {
      dir: flag.path({ description: 'device files', valueName: 'DIR', default: '/nonexistent' }),
      mode: flag.enum({ description: 'a mode', values: ['fast', 'slow'], default: 'fast' }),
      pace: flag.duration({ description: 'a pace', default: '1s', serveOnly: true }),
    },
    health: {
      holdUntilHealthy: options.holdUntilHealthy ?? false,
      vanishedGraceMs: options.vanishedGraceMs ?? 0,
      keepVanished: options.keepVanished ?? 'all',
    },
    setup: (ctx) => {
      calls.push(`setup ${ctx.command}`);
      return { scans: 0 };
    },
    scan: {
      watch: ({ flags }) => ({ paths: [flags.dir] }),
      interval: '1h',
      run: ({ flags, state }) => {
        state.scans += 1;
        const names = readdirSync(flags.dir).sort();
        if (names.includes('FAIL')) throw new Error('the scan broke');
        return names.map((name) => ({ name, text: readFileSync(join(flags.dir, name), 'utf8').trim() }));
      },
    },
    resources: (files, { config }) => {
      const byKind = new Map<string, PluginDevice<string>[]>();
      for (const { name, text } of files) {
        const [kind, id] = name.split('.');
        if (kind === undefined || id === undefined) continue;
        const list = byKind.get(kind) ?? [];
        list.push({
          id,
          health: text === 'ok' ? 'Healthy' : 'Unhealthy',
          ...(text === 'ok' ? {} : { problem: text }),
          numaNodes: [0],
          attributes: { file: name },
          payload: text,
          allocation: { devices: [{ containerPath: `/dev/${kind}${id}`, hostPath: `/dev/${kind}${id}` }] },
        });
        byKind.set(kind, list);
      }
      const resources = [...byKind].map(([kind, devices]): ResourceSpec<string> => ({
        name: `${config.prefix}/${kind}`,
        devices,
        allocate: ({ devices: chosen }) => {
          if (chosen.some((d) => d.id === 'refused'))
            throw new DevicePluginError(Code.FailedPrecondition, 'refused on purpose');
          return {
            envs: { TEST_DEVICES: chosen.map((d) => d.id).join(',') },
            mounts: [{ containerPath: '/etc/test', hostPath: '/etc/test', readOnly: true }],
            devices: chosen.map((d) => ({
              containerPath: `/dev/${kind}${d.id}`,
              hostPath: `/dev/${kind}${d.id}`,
            })),
          };
        },
        afterAllocate: ({ devices: chosen }) =>
          void calls.push(`allocated ${chosen.map((d) => d.id).join(',')}`),
        ...(kind === 'fancy'
          ? { preferredAllocation: ({ available, size }) => available.slice(-size).map((d) => d.id) }
          : {}),
        ...(config.prestart.includes(kind)
          ? { preStartContainer: () => void calls.push(`prestart ${kind}`) }
          : {}),
      }));
      return {
        resources,
        excluded: [{ path: '/sys/devices/other', reason: 'not a test device' }],
        warnings: files.some((f) => f.name === 'WARN') ? ['a WARN file is present'] : [],
      };
    },
    hooks: {
      advertise: (set) =>
        void calls.push(`advertise ${set.resources.map((r) => `${r.name}:${r.devices.length}`).join(' ')}`),
      stop: () => void calls.push('stop'),
    },
  });
}

let root: string;
let devices: string;
let dp: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kdp-rt-'));
  devices = join(root, 'devices');
  dp = join(root, 'dp');
  mkdirSync(devices);
  mkdirSync(dp);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const put = (name: string, text = 'ok'): void => {
  writeFileSync(join(devices, `.${name}.tmp`), text);
  renameSync(join(devices, `.${name}.tmp`), join(devices, name));
};
const roots = (): string[] => ['--sysfs-root', root, '--dev-root', root];

describe('runPlugin: --help, --version and usage errors', () => {
  it('prints --help generated from the common and the declared flags', async () => {
    const { code, stdout, stderr } = await runPluginCommand(testPlugin(), ['--help']);
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toBe(
      [
        'Test device plugin',
        '',
        'Usage:',
        '  test-device-plugin serve    [flags]                          run: discover, serve, register, watch',
        '  test-device-plugin discover [flags] [--output json|table]    scan once, print the result, exit (no kubelet needed)',
        '  test-device-plugin --version | --help',
        '',
        'Flags:',
        '  --sysfs-root DIR             where sysfs is read [/sys]',
        '  --dev-root DIR               where device nodes are looked up [/dev]',
        "  --device-plugin-dir DIR      the kubelet's socket directory [/var/lib/kubelet/device-plugins] (serve)",
        '  --device-list-strategy LIST  how Allocate hands devices over (default: each resource its own) (serve)',
        '  --cdi-dir DIR                where CDI specs are written for the cdi strategy [/var/run/cdi] (serve)',
        '  --registration MODE          kubelet (Register on kubelet.sock) or plugin-watcher [kubelet] (serve)',
        "  --plugins-registry-dir DIR   the kubelet's plugin-watcher directory [/var/lib/kubelet/plugins_registry] (serve)",
        '  --metrics-address HOST:PORT  serve /metrics, /healthz, /readyz; off when absent (serve)',
        '  --log-level LEVEL            JSON logs on stderr [info]',
        '  --log-dir DIR                also append the JSON logs to DIR/<binary>.log (absolute; created if missing)',
        "  --node-name NAME             this node's name, which selects its key of a --config directory [$NODE_NAME]",
        '  --node-config-label LABEL    node label naming the key of a --config directory (needs get nodes)',
        '  --default-config KEY         key of a --config directory used when neither the label nor the node name names one',
        "  --nfd-features-dir DIR       write node feature labels to DIR/kdp-<plugin> (NFD's features.d); off when absent (serve)",
        '  --poll-interval DURATION     how often the change probe (without one: a full scan) runs [1h] (serve)',
        '  --output json|table          discover only: output format [table]',
        '',
        'Test device plugin flags:',
        '  --config FILE                YAML or JSON configuration, or a directory of them (one per node); absent = defaults',
        '  --dir DIR                    device files [/nonexistent]',
        '  --mode fast|slow             a mode [fast]',
        '  --pace DURATION              a pace [1s] (serve)',
        '',
        'Exit codes: 0 done (discover: the scan ran), 1 failure, 2 usage or configuration error.',
        '',
      ].join('\n'),
    );
    expect((await runPluginCommand(testPlugin(), ['serve', '-h'])).code).toBe(0);
  });

  it('prints the version', async () => {
    expect(await runPluginCommand(testPlugin(), ['--version'])).toEqual({
      code: 0,
      stdout: 'test-device-plugin 1.2.3\n',
      stderr: '',
    });
  });

  it.each([
    [[], 'missing command: serve or discover'],
    [['start'], 'unknown command "start": expected serve or discover'],
    [['discover', 'extra'], 'unexpected argument "extra"'],
    [['discover', '--nope'], "Unknown option '--nope'"],
    [['discover', '--config'], "Option '--config <value>' argument missing"],
    [['discover', '--version=3'], "Option '--version' does not take an argument"],
    [
      ['discover', '--log-level', 'verbose'],
      '--log-level "verbose" is not one of trace, debug, info, warn, error',
    ],
    [['discover', '--config='], '--config must not be empty'],
    [['discover', '--mode', 'medium'], '--mode "medium" is not one of fast, slow'],
    [['discover', '--mode', 'fast', '--mode', 'slow'], '--mode is given 2 times'],
    [['discover', '--pace', '2s'], '--pace applies to serve only'],
    [
      ['serve', '--poll-interval', 'soon'],
      '--poll-interval "soon" is not a duration (e.g. 500ms, 1s, 2m30s)',
    ],
    [['serve', '--poll-interval', '10ms'], '--poll-interval 10ms is shorter than 50ms'],
    [
      ['serve', '--metrics-address', '9100'],
      '--metrics-address "9100" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)',
    ],
    [['discover', '--poll-interval', '1s'], '--poll-interval applies to serve only'],
    [['discover', '--metrics-address', ':9100'], '--metrics-address applies to serve only'],
    [['discover', '--cdi-dir', '/tmp'], '--cdi-dir applies to serve only'],
    [['discover', '--device-plugin-dir', '/tmp'], '--device-plugin-dir applies to serve only'],
    [['discover', '--device-list-strategy', 'cdi'], '--device-list-strategy applies to serve only'],
    [['serve', '--proc-root', '/proc'], "Unknown option '--proc-root'"],
    [
      ['serve', '--device-list-strategy', 'volume-mounts'],
      '--device-list-strategy "volume-mounts": expected envvar, device-specs, cdi',
    ],
    [
      ['serve', '--device-list-strategy', ','],
      '--device-list-strategy names no strategy: expected envvar, device-specs, cdi',
    ],
    [['serve', '--registration', 'grpc'], '--registration "grpc" is not one of kubelet, plugin-watcher'],
    [
      ['serve', '--registration', 'plugin-watcher', '--plugins-registry-dir', '/nonexistent-kdp'],
      '--plugins-registry-dir /nonexistent-kdp: no such directory',
    ],
    [['discover', '--output', 'xml'], '--output "xml" is not json or table'],
    [['serve', '--output', 'json'], '--output applies to discover only'],
    [['discover', '--sysfs-root', '/nonexistent-kdp'], '--sysfs-root /nonexistent-kdp: no such directory'],
    [
      ['serve', '--device-plugin-dir', '/nonexistent-kdp'],
      '--device-plugin-dir /nonexistent-kdp: no such directory',
    ],
  ])('exits 2 for %j, saying why on stderr', async (argv, message) => {
    const { code, stdout, stderr } = await runPluginCommand(testPlugin(), argv);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toBe(`test-device-plugin: ${message}\n\nRun test-device-plugin --help for the flags.\n`);
  });
});

describe('runPlugin: discover', () => {
  it('prints devices from the same scan and the same allocate hook that serve uses', async () => {
    put('gpu.0');
    put('gpu.1', 'fan stopped');
    put('nic.refused');
    const calls: string[] = [];
    const { code, stdout } = await runPluginCommand(testPlugin({ calls }), [
      'discover',
      '--output',
      'json',
      '--dir',
      devices,
      ...roots(),
    ]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.resources[0]).toEqual({
      resourceName: 'example.com/gpu',
      devices: [
        {
          id: '0',
          health: 'Healthy',
          numaNodes: [0],
          pciAddress: null,
          deviceSpecs: [{ containerPath: '/dev/gpu0', hostPath: '/dev/gpu0', permissions: 'rw' }],
          mounts: [{ containerPath: '/etc/test', hostPath: '/etc/test', readOnly: true }],
          envs: { TEST_DEVICES: '0' },
          attributes: { file: 'gpu.0' },
        },
        expect.objectContaining({
          id: '1',
          health: 'Unhealthy',
          attributes: { file: 'gpu.1', problem: 'fan stopped' },
        }),
      ],
    });
    // A device whose allocation fails is still listed, and why is a warning; discover never runs afterAllocate.
    expect(doc.resources[1].devices[0]).toMatchObject({ id: 'refused', deviceSpecs: [], envs: {} });
    expect(doc.warnings).toEqual(['example.com/nic: allocating refused alone fails: refused on purpose']);
    expect(doc.excluded).toEqual([{ path: '/sys/devices/other', reason: 'not a test device' }]);
    expect(calls).toEqual(['setup discover']);
  });

  it('lists devices never seen healthy as excluded when the plugin holds them back', async () => {
    put('gpu.0');
    put('gpu.1', 'fan stopped');
    const { stdout } = await runPluginCommand(testPlugin({ holdUntilHealthy: true }), [
      'discover',
      '--output=json',
      '--dir',
      devices,
      ...roots(),
    ]);
    const doc = JSON.parse(stdout);
    expect(doc.resources[0].devices.map((d: { id: string }) => d.id)).toEqual(['0']);
    expect(doc.excluded).toContainEqual({ path: '1', reason: '1: fan stopped (advertised once healthy)' });
  });

  it('prints a table by default, and applies the configuration file', async () => {
    put('gpu.0');
    const file = join(root, 'c.yaml');
    writeFileSync(file, 'prefix: vendor.io\n');
    const { code, stdout } = await runPluginCommand(testPlugin(), [
      'discover',
      '--config',
      file,
      '--dir',
      devices,
      ...roots(),
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'RESOURCE       DEVICE  HEALTH   NUMA  PCI  DEVICE NODES',
        'vendor.io/gpu  0       Healthy  0     -    /dev/gpu0',
        '',
        'EXCLUDED',
        'PATH                REASON',
        '/sys/devices/other  not a test device',
        '',
      ].join('\n'),
    );
  });

  it('exits 2 naming the file, the field and the problem for a bad configuration; unknown keys under warn are warnings', async () => {
    const file = join(root, 'c.yaml');
    writeFileSync(file, 'prefix: 3\n');
    const bad = await runPluginCommand(testPlugin(), [
      'discover',
      '--config',
      file,
      '--dir',
      devices,
      ...roots(),
    ]);
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toBe(`test-device-plugin: ${file}: prefix: expected string, received number\n`);
    writeFileSync(file, 'prefix: a.io\nextra: 1\n');
    const lenient = definePlugin({
      ...testPlugin(),
      config: { schema: z.object(schema.shape), unknownKeys: 'warn' },
    });
    const ok = await runPluginCommand(lenient, [
      'discover',
      '--output',
      'json',
      '--config',
      file,
      '--dir',
      devices,
      ...roots(),
    ]);
    expect(JSON.parse(ok.stdout).warnings).toEqual([`${file}: extra: unknown key; ignored`]);
  });

  it('exits 1 when the scan fails, with the error logged and on stderr', async () => {
    put('FAIL');
    const { code, stderr } = await runPluginCommand(testPlugin(), ['discover', '--dir', devices, ...roots()]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/"msg":"discover failed"/);
    expect(stderr).toMatch(/"stack":"Error: the scan broke/);
    expect(stderr).toMatch(/test-device-plugin: the scan broke\n$/);
  });
});

describe('runPlugin: serve against kubelet-sim', () => {
  let sim: KubeletSim;
  let run: PluginRun | undefined;
  beforeEach(async () => {
    sim = await createKubeletSim({ dir: dp });
  });
  afterEach(async () => {
    if (run !== undefined) {
      run.signal('SIGTERM');
      await run.done;
    }
    run = undefined;
    await sim.close();
  });

  const until = (
    resource: string,
    predicate: (state: { healthy: string[]; unhealthy: string[] }) => boolean,
  ) => sim.until(resource, predicate);
  const serve = (definition: AnyPluginDefinition, ...argv: string[]): PluginRun =>
    (run = startPluginRun(definition, [
      'serve',
      '--device-plugin-dir',
      dp,
      '--dir',
      devices,
      ...roots(),
      ...argv,
    ]));

  it('registers what the first scan found, adds, updates and removes resources as files change (inotify, no poll)', async () => {
    put('gpu.0');
    put('gpu.1');
    const calls: string[] = [];
    serve(testPlugin({ calls }));
    await until('example.com/gpu', (s) => s.healthy.length === 2);
    expect(sim.resource('example.com/gpu')?.options).toEqual({
      preStartRequired: false,
      getPreferredAllocationAvailable: false,
    });

    const added = sim.waitFor('registered', (e) => e.resource === 'example.com/fancy', 30_000);
    put('fancy.a');
    put('fancy.b');
    await added;
    await until('example.com/fancy', (s) => s.healthy.length === 2);
    expect(sim.resource('example.com/fancy')?.options.getPreferredAllocationAvailable).toBe(true);

    put('gpu.1', 'fan stopped');
    await until('example.com/gpu', (s) => s.unhealthy.includes('1'));
    await run?.waitForLog(
      (l) => l['msg'] === 'device unhealthy' && l['device'] === '1' && l['problem'] === 'fan stopped',
    );
    put('gpu.1');
    await until('example.com/gpu', (s) => s.healthy.length === 2);
    await run?.waitForLog((l) => l['msg'] === 'device healthy again' && l['device'] === '1');

    const socket = readdirSync(dp).find((name) => name.startsWith('example.com_fancy'));
    expect(socket).toBeDefined();
    rmSync(join(devices, 'fancy.a'));
    rmSync(join(devices, 'fancy.b'));
    await run?.waitForLog(
      (l) => l['msg'] === 'resource gone; removed' && l['resource'] === 'example.com/fancy',
    );
    expect(existsSync(join(dp, socket ?? ''))).toBe(false);
    expect(calls).toContain('advertise example.com/gpu:2 example.com/fancy:2');

    const admission = await sim.admit({ pod: 'p', container: 'c', resource: 'example.com/gpu', count: 2 });
    expect(admission.response.envs).toEqual({ TEST_DEVICES: '0,1' });
    expect(calls).toContain('allocated 0,1');

    run?.signal('SIGTERM');
    expect(await run?.done).toBe(0);
    expect(calls.slice(-1)).toEqual(['stop']);
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) expect(run?.listeners(signal)).toBe(0);
    expect(readdirSync(dp).filter((name) => name.startsWith('example.com_'))).toEqual([]);
    run = undefined;
  }, 60_000);

  it('hands devices over by CDI with --device-list-strategy cdi: the spec exists before the kubelet sees the devices, its names resolve to what device-specs gives, and it goes at shutdown', async () => {
    put('gpu.0');
    put('gpu.1');
    for (const node of ['gpu0', 'gpu1']) writeFileSync(join(root, node), 'c 240:0\n'); // /dev/gpuN under --dev-root
    const cdiDir = join(root, 'cdi');
    serve(testPlugin(), '--device-list-strategy', 'cdi', '--cdi-dir', cdiDir);
    const registered = await sim.waitFor('registered', (e) => e.resource === 'example.com/gpu', 30_000);
    expect(registered).toBeDefined();
    expect(readdirSync(cdiDir)).toEqual(['kdp-k8s.device-plugin.example.com-gpu_test.json']);
    await until('example.com/gpu', (s) => s.healthy.length === 2);
    const admission = await sim.admit({ pod: 'p', container: 'c', resource: 'example.com/gpu', count: 2 });
    const names = admission.response.cdiDevices.map((d) => d.name);
    expect(admission.response).toMatchObject({ devices: [], mounts: [], envs: { TEST_DEVICES: '0,1' } });
    expect(names).toEqual(['k8s.device-plugin.example.com/gpu=0', 'k8s.device-plugin.example.com/gpu=1']);
    const resolved = resolveCdiDevices(cdiDir, names);
    expect({ devices: resolved.devices, mounts: resolved.mounts }).toEqual({
      devices: ['/dev/gpu0', '/dev/gpu1'].map((p) => ({ containerPath: p, hostPath: p, permissions: 'rw' })),
      mounts: [{ containerPath: '/etc/test', hostPath: '/etc/test', readOnly: true }],
    });
    // A device whose node is not under --dev-root is advertised, but left out of the spec: Allocate says why.
    put('gpu.2');
    await until('example.com/gpu', (s) => s.healthy.length === 3);
    await expect(
      sim.admit({ pod: 'q', container: 'c', resource: 'example.com/gpu', count: 1 }),
    ).rejects.toThrow(/device 2 has no CDI device: \/dev\/gpu2 is not a device node under --dev-root/);
    run?.signal('SIGTERM');
    expect(await run?.done).toBe(0);
    run = undefined;
    expect(readdirSync(cdiDir)).toEqual([]);
  }, 60_000);

  it('registers through the plugin watcher with --registration plugin-watcher', async () => {
    const registry = join(root, 'plugins_registry');
    mkdirSync(registry);
    const watcherSim = await createKubeletSim({ dir: join(root, 'dp2'), pluginsRegistryDir: registry });
    try {
      put('gpu.0');
      serve(testPlugin(), '--registration', 'plugin-watcher', '--plugins-registry-dir', registry);
      await watcherSim.until('example.com/gpu', (s) => s.healthy.length === 1);
      expect(readdirSync(registry).some((name) => name.startsWith('example.com_gpu'))).toBe(true);
      expect(sim.resource('example.com/gpu')).toBeUndefined(); // nothing went to kubelet.sock
      run?.signal('SIGTERM');
      expect(await run?.done).toBe(0);
      run = undefined;
      expect(readdirSync(registry).filter((name) => name.startsWith('example.com_'))).toEqual([]);
    } finally {
      await watcherSim.close();
    }
  }, 60_000);

  it('keeps the last devices when a scan throws, logs it once, and says when scans work again', async () => {
    put('gpu.0');
    serve(testPlugin());
    await until('example.com/gpu', (s) => s.healthy.length === 1);
    put('FAIL');
    await run?.waitForLog((l) => l['msg'] === 'scan failed; keeping the last devices');
    put('gpu.1'); // another event while failing: same error, not logged again
    await run?.waitForLog((l) => l['msg'] === 'scan failed; keeping the last devices' && l !== undefined);
    expect(sim.resource('example.com/gpu')?.healthy).toEqual(['0']);
    rmSync(join(devices, 'FAIL'));
    await until('example.com/gpu', (s) => s.healthy.length === 2);
    await run?.waitForLog((l) => l['msg'] === 'scan succeeded again');
    expect(run?.logs().filter((l) => l['msg'] === 'scan failed; keeping the last devices')).toHaveLength(1);
    expect(
      run?.logs().find((l) => l['msg'] === 'scan failed; keeping the last devices')?.['err'],
    ).toMatchObject({
      message: 'the scan broke',
      stack: expect.stringContaining('Error: the scan broke'),
    });
  }, 60_000);

  it('reloads the configuration: resources follow it, a bad file keeps the running one, SIGHUP reloads', async () => {
    put('gpu.0');
    const file = join(root, 'c.yaml');
    writeFileSync(file, 'prefix: a.io\n');
    serve(testPlugin(), '--config', file);
    await until('a.io/gpu', (s) => s.healthy.length === 1);
    writeFileSync(`${file}.new`, 'prefix: 7\n');
    renameSync(`${file}.new`, file);
    await run?.waitForLog(
      (l) => l['msg'] === 'configuration reload failed; keeping the running configuration',
    );
    const moved = sim.waitFor('registered', (e) => e.resource === 'b.io/gpu', 30_000);
    writeFileSync(`${file}.new`, 'prefix: b.io\n');
    renameSync(`${file}.new`, file);
    await moved;
    await run?.waitForLog((l) => l['msg'] === 'resource gone; removed' && l['resource'] === 'a.io/gpu');
    // A reload that adds a PreStartContainer hook re-registers the resource with the new option.
    writeFileSync(file, 'prefix: b.io\nprestart: [gpu]\n');
    run?.signal('SIGHUP');
    await run?.waitForLog((l) => l['msg'] === 'resource hooks changed; registering again');
    await sim
      .waitFor(
        'registered',
        (e) => e.resource === 'b.io/gpu' && sim.resource('b.io/gpu')?.options.preStartRequired === true,
        30_000,
      )
      .catch(() => undefined);
    await until('b.io/gpu', () => sim.resource('b.io/gpu')?.options.preStartRequired === true);
    expect(
      run
        ?.logs()
        .filter((l) => l['msg'] === 'configuration reloaded')
        .map((l) => l['reason']),
    ).toEqual(['file', 'signal']);
  }, 60_000);

  it('keeps a vanished device Unhealthy for the declared grace; with keepVanished allocated only once allocated', async () => {
    put('gpu.0');
    put('gpu.1');
    serve(testPlugin({ vanishedGraceMs: Number.POSITIVE_INFINITY, keepVanished: 'allocated' }));
    await until('example.com/gpu', (s) => s.healthy.length === 2);
    const admission = await sim.admit({ pod: 'p', container: 'c', resource: 'example.com/gpu', count: 1 });
    const [held] = admission.deviceIds;
    const other = held === '0' ? '1' : '0';
    rmSync(join(devices, `gpu.${held}`));
    rmSync(join(devices, `gpu.${other}`));
    await until('example.com/gpu', (s) => s.healthy.length === 0 && s.unhealthy.length === 1);
    expect(sim.resource('example.com/gpu')?.unhealthy).toEqual([held]);
    await run?.waitForLog(
      (l) => l['msg'] === 'device unhealthy' && l['problem'] === 'no longer found by the scan',
    );
    put(`gpu.${held}`);
    await until('example.com/gpu', (s) => s.healthy.length === 1 && s.unhealthy.length === 0);
  }, 60_000);

  it('serves metrics and probes; readiness waits for the first scan and the registrations', async () => {
    put('gpu.0');
    const running = serve(testPlugin(), '--metrics-address', '127.0.0.1:0');
    const line = await running.waitForLog((l) => l['msg'] === 'serving /metrics, /healthz and /readyz');
    const url = String(line['url']);
    await until('example.com/gpu', (s) => s.healthy.length === 1);
    const ready = async (): Promise<number> => (await fetch(`${url}/readyz`)).status;
    const deadline = Date.now() + 30_000;
    while ((await ready()) !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await ready()).toBe(200);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('kdp_build_info{plugin="test-device-plugin",version="1.2.3"');
    expect(text).toContain('kdp_device_health{resource="example.com/gpu",device="0"} 1');
    expect(text).toContain('kdp_resource_registered{resource="example.com/gpu"} 1');
    run?.signal('SIGINT');
    expect(await run?.done).toBe(0);
    run = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);

  it("keeps V8's TurboFan off while it only serves, and turns it on with the first call (@kdp/core/start)", async () => {
    put('gpu.0');
    expect(optimizingCompilers.hold()).toBe(true);
    try {
      serve(testPlugin());
      await until('example.com/gpu', (s) => s.healthy.length === 1);
      // Registered, options asked, devices listed: no call yet.
      expect(optimizingCompilers.held).toBe(true);
      await sim.admit({ pod: 'p', container: 'c', resource: 'example.com/gpu', count: 1 });
      expect(optimizingCompilers.held).toBe(false);
    } finally {
      optimizingCompilers.release();
    }
  });

  it('exits 2 before serving anything when the configuration is bad at start', async () => {
    const file = join(root, 'c.yaml');
    writeFileSync(file, 'prefix: [1]\n');
    const calls: string[] = [];
    const bad = await runPluginCommand(testPlugin({ calls }), [
      'serve',
      '--device-plugin-dir',
      dp,
      '--config',
      file,
      '--dir',
      devices,
      ...roots(),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`test-device-plugin: ${file}: prefix: expected string, received array\n`);
    expect(calls).toEqual([]);
  });
});
