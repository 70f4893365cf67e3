// The lifecycle benchmark: kubelet-sim in this process, the sample plugin in a child process; every latency is
// taken from event timestamps (`performance.timeOrigin + performance.now()`, comparable across processes).
// KDP_BENCH_SHORT=1: a fifth of the Allocates and 2 s idle (the CI check; restarts and changes are cheap, and their
// p99 needs every sample);
// KDP_BENCH_JSON=FILE: every figure as `{ metric: number }`; KDP_BENCH_IDLE_MS: the idle wait.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { DevicePluginClient, type AllocateRequest } from '@kdp/api';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { bundleEntry } from '@kdp/kubelet-sim/testing';

const RESOURCE = 'example.com/sample';
const SHORT = process.env['KDP_BENCH_SHORT'] === '1';
const RESTARTS = 50;
const CHANGES = 200;
const ALLOCATES = SHORT ? 1000 : 5000;
const WARM_UP = SHORT ? 100 : 500;
const IDLE_MS = Number(process.env['KDP_BENCH_IDLE_MS'] ?? (SHORT ? 2000 : 30_000));
const now = (): number => performance.timeOrigin + performance.now();

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const ms = (value: number): string => `${value.toFixed(2)} ms`;

interface Message {
  type: string;
  at?: number;
  rss?: number;
  times?: number[];
}

function nextMessage(child: ChildProcess, type: string): Promise<Message> {
  return new Promise((resolve) => {
    const listener = (message: Message): void => {
      if (message.type !== type) return;
      child.off('message', listener);
      resolve(message);
    };
    child.on('message', listener);
  });
}

async function readRss(child: ChildProcess): Promise<number> {
  const reply = nextMessage(child, 'rss');
  child.send({ type: 'rss' });
  return ((await reply).rss ?? Number.NaN) / 1024 / 1024;
}

async function main(): Promise<void> {
  // The sample plugin as its own process, bundled from source the way the packages' builds bundle binaries.
  const sample = bundleEntry(join(process.cwd(), 'packages/core/src/sample-plugin.fixture.ts'));
  const pluginBundle = sample.path;
  const tmp = mkdtempSync(join(tmpdir(), 'kb-'));
  const dir = join(tmp, 'dp');
  const sim = await createKubeletSim({ dir });
  const rows: Array<[string, string, string, string]> = [];
  const metrics: Record<string, number> = {};
  let child: ChildProcess | undefined;
  try {
    // 1. Process start → registered (and first list).
    const registered = sim.waitFor('registered', (e) => e.resource === RESOURCE, 30_000);
    const listed = sim.waitFor('devices', (e) => e.resource === RESOURCE, 30_000);
    const spawnedAt = now();
    child = fork(pluginBundle, [dir, '8'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const started = nextMessage(child, 'started');
    const first = await registered;
    const loadedMs = ((await started).at ?? Number.NaN) - spawnedAt;
    await listed;
    const latest = first.endpoint;
    const startMs = first.at - spawnedAt;
    Object.assign(metrics, { startToRegisteredMs: startMs, nodeStartAndLoadMs: loadedMs });
    rows.push([
      'process start → registered',
      ms(startMs),
      '',
      startMs < 500 ? 'ok (< 500 ms)' : 'MISS (< 500 ms)',
    ]);
    rows.push(['  of which node start + loading the bundle', ms(loadedMs), '', '']);

    // 2. Idle RSS, registered and serving, before any load.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const rssMiB = await readRss(child);
    metrics['idleRssMiB'] = rssMiB;
    rows.push([
      `idle RSS after ${IDLE_MS / 1000} s`,
      `${rssMiB.toFixed(1)} MiB`,
      '',
      rssMiB < 64 ? 'ok (< 64 MiB)' : 'MISS (< 64 MiB)',
    ]);

    // 3. Re-registration after a kubelet restart.
    const reregister: number[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      const again = sim.waitFor('registered', (e) => e.resource === RESOURCE, 30_000);
      const relisted = sim.waitFor('devices', (e) => e.resource === RESOURCE, 30_000);
      const restartAt = now();
      await sim.restart();
      reregister.push((await again).at - restartAt);
      await relisted;
    }
    const reP99 = percentile(reregister, 99);
    Object.assign(metrics, { reregisterP50Ms: percentile(reregister, 50), reregisterP99Ms: reP99 });
    rows.push([
      `re-registration after restart (${RESTARTS})`,
      ms(percentile(reregister, 50)),
      ms(reP99),
      reP99 < 100 ? 'ok (p99 < 100 ms)' : 'MISS (p99 < 100 ms)',
    ]);

    // 4. Device-list change in the plugin → the kubelet has it.
    const updates: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const unhealthy = i % 2 === 0 ? ['dev0'] : [];
      const seen = sim.waitFor(
        'devices',
        (e) => e.resource === RESOURCE && e.unhealthy.length === unhealthy.length,
        30_000,
      );
      const set = nextMessage(child, 'set');
      child.send({ type: 'set', unhealthy });
      updates.push((await seen).at - ((await set).at ?? Number.NaN));
    }
    const upP99 = percentile(updates, 99);
    Object.assign(metrics, { deviceChangeP50Ms: percentile(updates, 50), deviceChangeP99Ms: upP99 });
    rows.push([
      `device-list change → kubelet (${CHANGES})`,
      ms(percentile(updates, 50)),
      ms(upP99),
      upP99 < 50 ? 'ok (p99 < 50 ms)' : 'MISS (p99 < 50 ms)',
    ]);

    // 5. Allocate, sequential, over the plugin's socket.
    const client = new DevicePluginClient(`unix://${join(dir, latest)}`, credentials.createInsecure());
    const allocate = (request: AllocateRequest): Promise<void> =>
      new Promise((resolve, reject) =>
        client.allocate(request, (error) => (error ? reject(error) : resolve())),
      );
    const request = (i: number): AllocateRequest => ({
      containerRequests: [{ devicesIds: [`dev${1 + (i % 7)}`] }],
    });
    for (let i = 0; i < WARM_UP; i++) await allocate(request(i));
    nextMessage(child, 'allocate-times').catch(() => undefined);
    child.send({ type: 'allocate-times' }); // drop the warm-up's
    const allocations: number[] = [];
    const began = performance.now();
    for (let i = 0; i < ALLOCATES; i++) {
      const t = performance.now();
      await allocate(request(i));
      allocations.push(performance.now() - t);
    }
    const sequentialRate = ALLOCATES / ((performance.now() - began) / 1000);
    const handled = nextMessage(child, 'allocate-times');
    child.send({ type: 'allocate-times' });
    const inside = (await handled).times ?? [];
    const parallelBegan = performance.now();
    for (let i = 0; i < ALLOCATES; i += 16) {
      await Promise.all(Array.from({ length: 16 }, (_, j) => allocate(request(i + j))));
    }
    const parallelRate = ALLOCATES / ((performance.now() - parallelBegan) / 1000);
    client.close();
    const alP99 = percentile(allocations, 99);
    Object.assign(metrics, {
      allocateP50Ms: percentile(allocations, 50),
      allocateP99Ms: alP99,
      allocateInsideP50Ms: percentile(inside, 50),
      allocateInsideP99Ms: percentile(inside, 99),
      allocateSequentialPerSecond: sequentialRate,
      allocateParallelPerSecond: parallelRate,
    });
    rows.push([
      `Allocate (${ALLOCATES}, sequential)`,
      ms(percentile(allocations, 50)),
      ms(alP99),
      alP99 < 2 ? 'ok (p99 < 2 ms)' : 'MISS (p99 < 2 ms)',
    ]);
    rows.push([
      'Allocate handling inside the plugin',
      ms(percentile(inside, 50)),
      ms(percentile(inside, 99)),
      '(hook + checks, no transport)',
    ]);
    rows.push([
      'Allocate throughput',
      `${sequentialRate.toFixed(0)} calls/s sequential`,
      `${parallelRate.toFixed(0)} calls/s, 16 in flight`,
      '',
    ]);
    metrics['finalRssMiB'] = await readRss(child);
    rows.push([
      'RSS after all of the above',
      `${(metrics['finalRssMiB'] ?? Number.NaN).toFixed(1)} MiB`,
      '',
      '(informational)',
    ]);
  } finally {
    child?.kill('SIGTERM');
    await sim.close();
    rmSync(tmp, { recursive: true, force: true });
    sample.remove();
  }
  const header: [string, string, string, string] = ['measure', 'p50 / value', 'p99', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(`@kdp/core lifecycle benchmark — node ${process.version}, ${cpus().length} CPUs\n`);
  process.stdout.write(`${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
  const json = process.env['KDP_BENCH_JSON'];
  if (json) writeFileSync(json, `${JSON.stringify(metrics, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
