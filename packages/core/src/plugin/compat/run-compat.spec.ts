import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { z } from 'zod';
import { runPluginCommand, startPluginRun } from '../../testing/start-plugin-run';
import { definePlugin, type AnyPluginDefinition } from '../define-plugin';
import type { CompatLayer } from './compat-layer';
import { klogFlags } from './klog-flags';

// A plugin whose one resource `<prefix>/thing` has `count` devices; an anchor layer that names the same things
// its own way: `-domain`, `-things`, $THINGS, a default config path and a `{ apiVersion: anchor/v1 }` format.
const schema = z.strictObject({
  prefix: z.string().default('example.com'),
  count: z.number().int().min(0).max(8).default(1),
});

const anchor: CompatLayer = {
  anchor: 'example/anchor v1',
  flags: {
    ...klogFlags,
    domain: { kind: 'value', description: 'resource domain', apply: (v, to) => to.setConfig(['prefix'], v) },
    things: { kind: 'value', description: 'how many', apply: (v, to) => to.setConfig(['count'], Number(v)) },
    'config-file': { kind: 'value', description: 'config', apply: (v, to) => to.flag('config', v) },
    mps: { kind: 'boolean', refuse: 'MPS is not offered; use time-slicing (sharing.replicas)' },
  },
  env: {
    THINGS: { kind: 'value', description: 'how many', apply: (v, to) => to.setConfig(['count'], Number(v)) },
  },
  defaultConfigPaths: ['/etc/anchor/config.yaml'],
  configFormat: {
    detect: (doc) =>
      typeof doc === 'object' && doc !== null && (doc as { apiVersion?: unknown }).apiVersion === 'anchor/v1',
    convert: (doc) => {
      const { domain, mps } = doc as { domain?: string; mps?: unknown };
      return {
        config: domain === undefined ? {} : { prefix: domain },
        ...(mps !== undefined ? { errors: [{ path: 'mps', message: 'MPS is not offered' }] } : {}),
        warnings: [{ path: 'apiVersion', message: 'converted from anchor/v1' }],
      };
    },
  },
};

const plugin: AnyPluginDefinition = definePlugin({
  name: 'thing',
  binary: 'thing-device-plugin',
  title: 'Things',
  version: '1.0.0',
  config: { schema },
  compat: [anchor],
  scan: { run: () => undefined },
  resources: (_scan, { config }) => ({
    resources: [
      {
        name: `${config.prefix}/thing`,
        devices: Array.from({ length: config.count }, (_, i) => ({
          id: `t${i}`,
          health: 'Healthy' as const,
        })),
        allocate: () => ({}),
      },
    ],
  }),
});

describe('compat layers in the runtime', () => {
  let dir: string;
  let roots: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-compat-'));
    mkdirSync(join(dir, 'sys'));
    mkdirSync(join(dir, 'dev'));
    roots = ['--sysfs-root', join(dir, 'sys'), '--dev-root', join(dir, 'dev')];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const discover = async (
    argv: readonly string[],
    options: { env?: Record<string, string>; anchorRoot?: string } = {},
  ) => {
    const result = await runPluginCommand(
      plugin,
      ['discover', '--output', 'json', ...roots, ...argv],
      options,
    );
    return {
      ...result,
      doc: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : undefined,
    };
  };
  const names = (doc: Record<string, unknown> | undefined) =>
    (doc?.['resources'] as Array<{ resourceName: string; devices: unknown[] }>).map(
      (r) => `${r.resourceName}×${r.devices.length}`,
    );

  it('applies anchor flags and env, and shows the effective configuration under `config`', async () => {
    const { code, doc } = await discover(['-domain=acme.io', '--things', '3'], { env: { THINGS: '2' } });
    expect(code).toBe(0);
    expect(names(doc)).toEqual(['acme.io/thing×3']);
    expect(doc?.['config']).toEqual({ prefix: 'acme.io', count: 3 });
    const fromEnv = await discover([], { env: { THINGS: '2' } });
    expect(fromEnv.doc?.['config']).toEqual({ prefix: 'example.com', count: 2 });
  });

  it("converts the anchor's file format, from --config or the anchor's flag, and sets flag keys over it", async () => {
    const file = join(dir, 'anchor.yaml');
    writeFileSync(file, 'apiVersion: anchor/v1\ndomain: vendor.com\n');
    const viaOurs = await discover(['--config', file]);
    expect(viaOurs.doc?.['config']).toEqual({ prefix: 'vendor.com', count: 1 });
    expect(viaOurs.doc?.['warnings']).toEqual([
      expect.stringContaining('apiVersion: converted from anchor/v1'),
    ]);
    const viaAnchor = await discover(['-config-file', file, '-things=4']);
    expect(names(viaAnchor.doc)).toEqual(['vendor.com/thing×4']);
  });

  it("loads the anchor's default config path when no config is named, and only then", async () => {
    mkdirSync(join(dir, 'root/etc/anchor'), { recursive: true });
    writeFileSync(join(dir, 'root/etc/anchor/config.yaml'), 'prefix: default.io\ncount: 5\n');
    const fromDefault = await discover([], { anchorRoot: join(dir, 'root') });
    expect(names(fromDefault.doc)).toEqual(['default.io/thing×5']);
    const ours = join(dir, 'ours.yaml');
    writeFileSync(ours, 'count: 0\n');
    const explicit = await discover(['--config', ours], { anchorRoot: join(dir, 'root') });
    expect(names(explicit.doc)).toEqual(['example.com/thing×0']);
  });

  it('exits 2 naming the option, the file and the field for what is refused or bad', async () => {
    const refused = await discover(['-mps']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '-mps (example/anchor v1) is not supported: MPS is not offered; use time-slicing',
    );
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'apiVersion: anchor/v1\nmps: {}\n');
    const bad = await discover(['--config', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(file);
    expect(bad.stderr).toContain('mps: MPS is not offered (example/anchor v1 format)');
    const range = await discover(['-things=99']);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/count/);
  });

  it('runs serve when anchor flags come without a command (DaemonSet args replace the image default)', async () => {
    const missing = join(dir, 'no-such-dir');
    const result = await runPluginCommand(plugin, [
      '-domain',
      'acme.io',
      ...roots,
      '--device-plugin-dir',
      missing,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--device-plugin-dir ${missing}: no such directory`);
  });

  it("lists each layer's accepted and refused options in --help", async () => {
    const { stdout } = await runPluginCommand(plugin, ['--help']);
    expect(stdout).toContain('Drop-in for example/anchor v1:');
    expect(stdout).toContain("memory: set the container's memory limit to 128Mi or more");
    expect(stdout).toMatch(/-things VALUE\s+how many/);
    expect(stdout).toMatch(/-mps\s+refused: MPS is not offered/);
    expect(stdout).toMatch(/\$THINGS\s+how many/);
    expect(stdout).toContain('default configuration (without --config): /etc/anchor/config.yaml');
  });

  it('appends the logs to <dir>/<binary>.log with --log-dir (klog -log_dir)', async () => {
    const logDir = join(dir, 'logs');
    const { code, stderr } = await discover(['-log_dir', logDir, '-domain=acme.io']);
    expect(code).toBe(0);
    const line = '-domain acme.io (example/anchor v1) → prefix=\\"acme.io\\"';
    expect(stderr).toContain(line);
    expect(readFileSync(join(logDir, 'thing-device-plugin.log'), 'utf8')).toContain(line);
  });
});

describe('per-node configuration: a --config directory, chosen by node label or node name, live', () => {
  let dir: string;
  let sim: KubeletSim;
  let api: Server;
  let labels: Record<string, string>;
  let requests: string[];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-per-node-'));
    for (const sub of ['sys', 'dev', 'dp', 'configs']) mkdirSync(join(dir, sub));
    writeFileSync(join(dir, 'configs', 'default.yaml'), 'count: 1\n');
    writeFileSync(join(dir, 'configs', 'node-7.yaml'), 'count: 2\n');
    writeFileSync(join(dir, 'configs', 'big'), 'count: 4\n');
    sim = await createKubeletSim({ dir: join(dir, 'dp') });
    labels = {};
    requests = [];
    api = createServer((req, res) => {
      requests.push(`${req.url ?? ''} ${req.headers.authorization ?? ''}`);
      if (req.url !== '/api/v1/nodes/node-7') {
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'forbidden' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'node-7', labels } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await sim.close();
    await new Promise((resolve) => api.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  const serveArgs = () => [
    'serve',
    '--sysfs-root',
    join(dir, 'sys'),
    '--dev-root',
    join(dir, 'dev'),
    '--device-plugin-dir',
    join(dir, 'dp'),
    '--config',
    join(dir, 'configs'),
  ];
  const devices = (n: number) =>
    sim.until('example.com/thing', () => sim.resource('example.com/thing')?.healthy.length === n);

  it('takes the key named after $NODE_NAME, and follows edits of the directory', async () => {
    const run = startPluginRun(plugin, serveArgs(), { env: { NODE_NAME: 'node-7' } });
    await devices(2);
    await run.waitForLog(
      (l) =>
        l['msg'] === 'configuration chosen for this node' &&
        String(l['selected']).includes('node name node-7'),
    );
    rmSync(join(dir, 'configs', 'node-7.yaml'));
    await devices(1); // back to the key named default
    expect(await run.stop()).toBe(0);
  });

  it("follows the node label (NVIDIA's nvidia.com/device-plugin.config) read through the API server", async () => {
    labels = { 'nvidia.com/device-plugin.config': 'big' };
    const label = 'nvidia.com/device-plugin.config';
    const run = startPluginRun(plugin, [...serveArgs(), '--node-config-label', label], {
      env: { NODE_NAME: 'node-7' },
      kubeApi: { server: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, token: 'sa-token' },
    });
    await devices(4);
    expect(requests[0]).toBe('/api/v1/nodes/node-7 Bearer sa-token');
    labels = {};
    await devices(2); // the label removed: the node's own key
    labels = { [label]: 'default' };
    await devices(1);
    expect(await run.stop()).toBe(0);
  });

  it('exits 2 when the label is asked for without API access or without a node name', async () => {
    const noApi = await runPluginCommand(plugin, [...serveArgs(), '--node-config-label', 'x'], {
      env: { NODE_NAME: 'n' },
    });
    expect(noApi.code).toBe(2);
    expect(noApi.stderr).toContain(
      '--node-config-label x needs the API server (an in-cluster service account)',
    );
    const noName = await runPluginCommand(plugin, [...serveArgs(), '--node-config-label', 'x'], {
      kubeApi: { server: 'http://127.0.0.1:1' },
    });
    expect(noName.stderr).toContain('needs the node name (--node-name or $NODE_NAME)');
  });
});
