// Prepare latency of `serve --mode dra` for 1, 8 and 64 claims per NodePrepareResources call, as a table (see
// bench.ts; short mode: 1 and 8 claims, 20 rounds).
//
// The driver, a plugin of 500 USB-like devices (usb-like-plugin.ts), runs in a process of its own as on a node:
// bundled from usb-like-plugin-main.ts and started on the images' Node (KDP_BENCH_NODE, else this Node) with the
// images' environment (tools/image/node-runtime.json), against kubelet-sim's DRA side and API server in this
// process (loopback HTTP), which stand for the kubelet and the API server, other processes on a node. Each round
// creates N claims allocated to N distinct devices (status written as the scheduler would) and measures one
// NodePrepareResources of all N two ways:
// - kubelet: `sim.prepareClaims` of a pod with the N claims, i.e. the kubelet's DRA manager reading each claim from
//   the API server and calling the driver once (what a pod start waits for);
// - driver: the same call straight on the driver's DRA socket (v1 gRPC), the driver's own share: one GET per claim,
//   the allocation checks, the plugin's allocate hook, a CDI spec file per claim and the checkpoint written twice
//   under its lock (PrepareStarted, then PrepareCompleted), the second write synced: one directory fsync.
// Then NodeUnprepareResources of the N claims (timed too), so every round starts from an empty checkpoint.
// As on a node, the checkpoint is on disk (the temporary directory) and the CDI specs on a tmpfs (/dev/shm, where
// /var/run/cdi is one; `BENCH_CDI_PARENT=DIR` picks another). `BENCH_ROUNDS` (default 100; 20 short).
// kubelet-sim's own state (its DRA manager checkpoint) goes there too.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { credentials } from '@grpc/grpc-js';
import { draV1 } from '@kdp/api';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import { benchNode, bundleEntry, imageProcessEnv, spawnPlugin, stopProcess } from '@kdp/kubelet-sim/testing';
import { formatTable, percentile, SHORT, verdict } from './bench-table';
import { USB_LIKE_DEVICES, USB_LIKE_DRIVER, USB_LIKE_RESOURCE } from './usb-like-plugin';

const NODE = 'bench-node';
const DRIVER = USB_LIKE_DRIVER;
const POOL = `${NODE}/${USB_LIKE_RESOURCE}`;
const DEVICES = USB_LIKE_DEVICES;
/** The Node the driver runs on. */
const DRIVER_NODE = benchNode();
/** The workspace root: this bench runs bundled from packages/dra/dist/bench/. */
const WORKSPACE = join(__dirname, '..', '..', '..', '..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? (SHORT ? 20 : 100));
const WARMUP = SHORT ? 3 : 5;
const BATCHES: readonly number[] = SHORT ? [1, 8] : [1, 8, 64];
/** Issue 30's target: one claim prepared on the driver's socket in at most 15 ms (p99), checkpoint on disk. */
const TARGET_SOCKET_1_P99_MS = 15;

const TMPFS_MAGIC = 0x01021994;
const isTmpfs = (dir: string): boolean => {
  try {
    return statfsSync(dir).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
};
/** The CDI directory's parent: a tmpfs as /var/run/cdi is on a node (/dev/shm), else the temporary directory. */
const CDI_PARENT = process.env['BENCH_CDI_PARENT'] ?? (isTmpfs('/dev/shm') ? '/dev/shm' : tmpdir());

interface Bench {
  readonly api: ApiServer;
  readonly sim: KubeletSim;
  readonly client: draV1.DRAPluginClient;
  /** The DRA device names of the pool, in slice order. */
  readonly devices: readonly string[];
  readonly cleanup: () => Promise<void>;
}

/** The pool's devices once its ResourceSlices list `count` of them, or a rejection after 60 s. */
function published(api: ApiServer, count: number): Promise<string[]> {
  const devicesOf = (): string[] =>
    api.store
      .list('resourceslices')
      .items.filter((s) => (s as unknown as { spec: { pool: { name: string } } }).spec.pool.name === POOL)
      .flatMap((s) =>
        (s as unknown as { spec: { devices: { name: string }[] } }).spec.devices.map((d) => d.name),
      );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the driver did not publish ${count} devices within 60 s`));
    }, 60_000);
    const stop = api.store.watch('resourceslices', {}, () => {
      const devices = devicesOf();
      if (devices.length !== count) return;
      clearTimeout(timer);
      stop();
      resolve(devices);
    });
  });
}

async function startBench(): Promise<Bench> {
  const base = mkdtempSync(join(tmpdir(), 'kdp-prepare-bench-'));
  const [registry, plugins, root] = ['plugins_registry', 'plugins', 'root'].map((d) => join(base, d)) as [
    string,
    string,
    string,
  ];
  for (const dir of [registry, plugins, root]) mkdirSync(dir);
  const cdi = mkdtempSync(join(CDI_PARENT, 'kdp-prepare-bench-cdi-'));
  const kubelet = mkdtempSync(join(CDI_PARENT, 'kdp-prepare-bench-kubelet-'));
  const api = await createApiServer({ nodes: [NODE] });
  const kubeconfig = join(base, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      'current-context': 'bench',
      contexts: [{ name: 'bench', context: { cluster: 'bench', user: 'bench' } }],
      clusters: [{ name: 'bench', cluster: { server: api.url } }],
      users: [{ name: 'bench', user: {} }],
    }),
    { mode: 0o600 },
  );
  const sim = await createKubeletSim({
    dir: kubelet,
    dra: { pluginsRegistryDir: registry, apiServer: { url: api.url }, nodeName: NODE },
  });
  const registered = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 60_000);
  const slices = published(api, DEVICES);
  const driver = bundleEntry(join(WORKSPACE, 'packages', 'dra', 'bench', 'usb-like-plugin-main.ts'));
  const driverProcess = spawnPlugin(
    driver.path,
    [
      ...['serve', '--mode', 'dra', '--sysfs-root', root, '--dev-root', root, '--log-level', 'warn'],
      ...['--node-name', NODE, '--kubeconfig', kubeconfig, '--cdi-dir', cdi],
      ...['--plugins-registry-dir', registry, '--dra-plugins-dir', plugins],
    ],
    // As its image starts it: the image's environment, none of the host's.
    imageProcessEnv(WORKSPACE),
    DRIVER_NODE.path,
  );
  const cleanup = async (): Promise<void> => {
    client.close();
    await stopProcess(driverProcess.child, 10_000);
    const [code] = await driverProcess.exited;
    await sim.close();
    await api.close();
    driver.remove();
    rmSync(base, { recursive: true, force: true });
    rmSync(cdi, { recursive: true, force: true });
    rmSync(kubelet, { recursive: true, force: true });
    if (code !== 0) throw new Error(`the driver exited with ${code}:\n${driverProcess.stderr()}`);
  };
  const client = new draV1.DRAPluginClient(
    `unix://${join(plugins, DRIVER, 'dra.sock')}`,
    credentials.createInsecure(),
  );
  let devices: string[];
  try {
    const early = driverProcess.exited.then(([code]) => {
      throw new Error(`the driver exited with ${code} before it served`);
    });
    [, devices] = await Promise.race([Promise.all([registered, slices]), early]);
  } catch (error) {
    await cleanup().catch(() => undefined);
    throw new Error(`${(error as Error).message}\ndriver log:\n${driverProcess.stderr()}`);
  }
  return { api, sim, client, devices, cleanup };
}

type ClaimRef = { readonly namespace: string; readonly name: string; readonly uid: string };

/** N claims allocated to N distinct devices from `first` on, reserved for one pod. */
function createClaims(
  bench: Bench,
  n: number,
  first: number,
  pod: { name: string; uid: string },
): ClaimRef[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `${pod.name}-c${i}`;
    const device = bench.devices[(first + i) % bench.devices.length];
    const created = bench.api.store.create(
      'resourceclaims',
      {
        metadata: { name },
        spec: { devices: { requests: [{ name: 'usb', exactly: { deviceClassName: DRIVER } }] } },
      },
      'default',
    );
    const updated = bench.api.store.update(
      'resourceclaims',
      {
        ...created,
        status: {
          allocation: {
            devices: { results: [{ request: 'usb', driver: DRIVER, pool: POOL, device }] },
            nodeSelector: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] },
              ],
            },
          },
          reservedFor: [{ resource: 'pods', name: pod.name, uid: pod.uid }],
        },
      },
      { namespace: 'default', subresource: 'status' },
    );
    return { namespace: 'default', name, uid: updated.metadata.uid ?? '' };
  });
}

/** One gRPC call, answered per claim: rejects on a call error or any claim's error. */
function call<R extends { claims: Record<string, { error: string }> }>(
  method: (request: { claims: ClaimRef[] }, callback: (error: Error | null, response?: R) => void) => unknown,
  claims: ClaimRef[],
): Promise<void> {
  return new Promise((resolve, reject) =>
    method({ claims }, (error, response) => {
      if (error !== null) return reject(error);
      const failed = claims.filter((c) => response?.claims[c.uid]?.error !== '');
      if (failed.length > 0)
        return reject(
          new Error(
            `claim ${failed[0]?.name}: ${response?.claims[failed[0]?.uid ?? '']?.error ?? 'no answer'}`,
          ),
        );
      resolve();
    }),
  );
}

interface Samples {
  kubelet: number[];
  driver: number[];
  unprepare: number[];
}

async function measure(bench: Bench, n: number): Promise<Samples> {
  const samples: Samples = { kubelet: [], driver: [], unprepare: [] };
  const prepare = bench.client.nodePrepareResources.bind(bench.client);
  const unprepare = bench.client.nodeUnprepareResources.bind(bench.client);
  let next = 0;
  for (let round = -WARMUP; round < ROUNDS; round++) {
    const keep = round >= 0;
    // Through the kubelet: one pod with the N claims; its deletion unprepares them.
    const pod = { name: `k${n}-${round + WARMUP}`, uid: randomUUID() };
    const viaKubelet = createClaims(bench, n, next, pod);
    next += n;
    let start = performance.now();
    const prepared = await bench.sim.prepareClaims(
      pod,
      viaKubelet.map((c) => c.name),
    );
    if (keep) samples.kubelet.push(performance.now() - start);
    if (prepared.length !== n || prepared.some((c) => c.devices.length !== 1))
      throw new Error(`kubelet: ${n} claims, ${prepared.length} prepared`);
    await bench.sim.deletePod(pod.name);
    // Straight on the socket.
    const direct = createClaims(bench, n, next, { name: `d${n}-${round + WARMUP}`, uid: randomUUID() });
    next += n;
    start = performance.now();
    await call(prepare, direct);
    if (keep) samples.driver.push(performance.now() - start);
    start = performance.now();
    await call(unprepare, direct);
    if (keep) samples.unprepare.push(performance.now() - start);
    for (const claim of [...viaKubelet, ...direct])
      bench.api.store.delete('resourceclaims', claim.name, { namespace: 'default' });
  }
  return samples;
}

/** Runs the prepare bench: its table, and its figures by metric name (ms). */
export async function runPrepareBench(): Promise<{ text: string; figures: Record<string, number> }> {
  const bench = await startBench();
  const rows: string[][] = [];
  const figures: Record<string, number> = {};
  try {
    for (const n of BATCHES) {
      const samples = await measure(bench, n);
      for (const [path, metric, values] of [
        ['prepare via kubelet-sim', 'prepare-kubelet', samples.kubelet],
        ['prepare on the DRA socket', 'prepare-socket', samples.driver],
        ['unprepare on the DRA socket', 'unprepare-socket', samples.unprepare],
      ] as const) {
        const p50 = percentile(values, 0.5);
        const p99 = percentile(values, 0.99);
        const target = metric === 'prepare-socket' && n === 1 ? TARGET_SOCKET_1_P99_MS : undefined;
        figures[`dra.${metric}.${n}.p50`] = p50;
        if (target !== undefined) figures[`dra.${metric}.${n}.p99`] = p99;
        rows.push([
          path,
          String(n),
          String(values.length),
          p50.toFixed(1),
          p99.toFixed(1),
          (p50 / n).toFixed(2),
          verdict(p99, target),
        ]);
      }
    }
  } finally {
    await bench.cleanup();
  }
  const header = ['call', 'claims/call', 'calls', 'p50 ms', 'p99 ms', 'p50 ms/claim', 'target (p99)'];
  const text = [
    `NodePrepareResources of serve --mode dra, ${DEVICES} USB-like devices, one device per claim, ${ROUNDS} calls per ` +
      `row (after ${WARMUP} warm-up calls); the driver in its own process on node ${DRIVER_NODE.version}, kubelet-sim's ` +
      `API server and DRA side in the bench's, loopback HTTP;`,
    `checkpoint in ${tmpdir()}${isTmpfs(tmpdir()) ? ' (tmpfs)' : ''} (one directory fsync per call), CDI specs and ` +
      `kubelet-sim's state in ${CDI_PARENT}${isTmpfs(CDI_PARENT) ? ' (tmpfs)' : ''}.`,
    '',
    formatTable(header, rows),
  ].join('\n');
  return { text, figures };
}
