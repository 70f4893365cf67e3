import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { runConfigManager, type ConfigManagerIo } from './run-config-manager';

// NVIDIA's chart (0.20.0, `config.map` given) sets these on its init container and sidecar.
const chartEnv = (dir: string, oneshot: boolean) => ({
  ONESHOT: String(oneshot),
  KUBECONFIG: '',
  NODE_NAME: 'node-7',
  NODE_LABEL: 'nvidia.com/device-plugin.config',
  CONFIG_FILE_SRCDIR: join(dir, 'available-configs'),
  CONFIG_FILE_DST: join(dir, 'config', 'config.yaml'),
  DEFAULT_CONFIG: '',
  FALLBACK_STRATEGIES: 'named,single',
  SEND_SIGNAL: String(!oneshot),
  SIGNAL: oneshot ? '' : '1',
  PROCESS_TO_SIGNAL: oneshot ? '' : 'nvidia-device-plugin',
});

describe('runConfigManager (NVIDIA config-manager contract)', () => {
  let dir: string;
  let api: Server;
  let labels: Record<string, string>;
  let server: string;
  const text = () => {
    let out = '';
    return { write: (chunk: string) => (out += chunk), text: () => out };
  };
  const run = (io: Partial<ConfigManagerIo> & { env: Record<string, string> }) => {
    const stderr = text();
    const signals = new EventEmitter();
    const codes: number[] = [];
    const done = runConfigManager({
      argv: [],
      stdout: text(),
      stderr,
      kubeApi: { server },
      intervalMs: 20,
      procRoot: join(dir, 'proc'),
      signals: signals as never,
      exit: (code) => codes.push(code),
      ...io,
    });
    return { done, stderr, signals };
  };
  const dst = () => join(dir, 'config', 'config.yaml');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'config-manager-'));
    // A ConfigMap volume: keys are links into ..data.
    mkdirSync(join(dir, 'available-configs', '..data'), { recursive: true });
    for (const [key, body] of [
      ['default', 'version: v1\nflags:\n  migStrategy: none\n'],
      ['a100', 'version: v1\nflags:\n  migStrategy: single\n'],
    ] as const) {
      writeFileSync(join(dir, 'available-configs', '..data', key), body);
      symlinkSync(join('..data', key), join(dir, 'available-configs', key));
    }
    mkdirSync(join(dir, 'config'));
    mkdirSync(join(dir, 'proc', '1'), { recursive: true });
    writeFileSync(join(dir, 'proc', '1', 'cmdline'), '/pause\0');
    mkdirSync(join(dir, 'proc', '42'));
    writeFileSync(join(dir, 'proc', '42', 'cmdline'), '/nodejs/bin/node\0/usr/bin/nvidia-device-plugin\0');
    labels = {};
    api = createServer((req, res) => {
      if (req.url !== '/api/v1/nodes/node-7') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'node-7', labels } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const address = api.address() as { port: number };
    server = `http://127.0.0.1:${address.port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => api.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('oneshot without a label writes the fallback `default` and sends no signal', async () => {
    const kills: number[] = [];
    const { done } = run({ env: chartEnv(dir, true), kill: (pid) => kills.push(pid) });
    await expect(done).resolves.toBe(0);
    expect(readFileSync(dst(), 'utf8')).toBe('version: v1\nflags:\n  migStrategy: none\n');
    expect(kills).toEqual([]);
  });

  it('oneshot writes the key the node label names', async () => {
    labels = { 'nvidia.com/device-plugin.config': 'a100' };
    await expect(run({ env: chartEnv(dir, true) }).done).resolves.toBe(0);
    expect(readFileSync(dst(), 'utf8')).toContain('migStrategy: single');
  });

  it('fails (1) when the label names no key', async () => {
    labels = { 'nvidia.com/device-plugin.config': 'h100' };
    const { done, stderr } = run({ env: chartEnv(dir, true) });
    await expect(done).resolves.toBe(1);
    expect(stderr.text()).toContain('specified config h100 does not exist');
  });

  it('the sidecar rewrites the file and sends SIGHUP to the plugin on a label change, once per change', async () => {
    writeFileSync(dst(), readFileSync(join(dir, 'available-configs', 'default')));
    const kills: Array<[number, number]> = [];
    const { done, signals } = run({
      env: chartEnv(dir, false),
      kill: (pid, signal) => kills.push([pid, signal]),
    });
    // Already configured: the first read changes nothing and signals nobody.
    labels = { 'nvidia.com/device-plugin.config': 'a100', other: 'x' };
    await waitFor(() => kills.length === 1);
    expect(kills).toEqual([[42, 1]]);
    expect(readFileSync(dst(), 'utf8')).toContain('migStrategy: single');
    labels = { 'nvidia.com/device-plugin.config': '' };
    await waitFor(() => kills.length === 2);
    expect(readFileSync(dst(), 'utf8')).toContain('migStrategy: none');
    signals.emit('SIGTERM');
    await expect(done).resolves.toBe(0);
    expect(kills).toEqual([
      [42, 1],
      [42, 1],
    ]);
  });

  it('the sidecar fails (1) when no process of that name is there to signal', async () => {
    rmSync(join(dir, 'proc', '42'), { recursive: true });
    const { done, stderr } = run({ env: chartEnv(dir, false) });
    await expect(done).resolves.toBe(1);
    expect(stderr.text()).toContain('no process nvidia-device-plugin found');
  });

  it('the empty fallback writes an empty configuration', async () => {
    const env = { ...chartEnv(dir, true), FALLBACK_STRATEGIES: 'empty', CONFIG_FILE_SRCDIR: join(dir, 'x') };
    mkdirSync(join(dir, 'x'));
    writeFileSync(join(dir, 'x', 'one'), 'a');
    writeFileSync(join(dir, 'x', 'two'), 'b');
    await expect(run({ env }).done).resolves.toBe(0);
    expect(readFileSync(dst(), 'utf8')).toBe('');
  });

  it.each([
    [{ KUBECONFIG: '/root/.kube/config' }, 'KUBECONFIG'],
    [{ NODE_NAME: '' }, '--node-name (NODE_NAME) must not be empty'],
    [{ FALLBACK_STRATEGIES: 'named,newest' }, 'unknown fallback strategy newest'],
    [{ ONESHOT: 'maybe' }, '--oneshot (ONESHOT)'],
    [{ SIGNAL: '99' }, '--signal 99'],
  ])('exits 2 naming what it cannot honour: %j', async (extra, message) => {
    const { done, stderr } = run({ env: { ...chartEnv(dir, true), ...extra } });
    await expect(done).resolves.toBe(2);
    expect(stderr.text()).toContain(message);
  });

  it('flags win over their environment variables; an unknown flag exits 2', async () => {
    labels = { 'kdp.dev/cfg': 'a100' };
    const env = chartEnv(dir, false);
    await expect(run({ env, argv: ['--oneshot', '--node-label=kdp.dev/cfg'] }).done).resolves.toBe(0);
    expect(readFileSync(dst(), 'utf8')).toContain('migStrategy: single');
    const bad = run({ env, argv: ['--watch-all'] });
    await expect(bad.done).resolves.toBe(2);
    expect(bad.stderr.text()).toContain('unknown flag --watch-all');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
