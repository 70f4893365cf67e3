// `nx run @kdp/device-plugins:bench`: each of the five plugins' bundles, and kdp-device-plugins with all five,
// started as their images start them (the image's /app: main.js, the bundle and its code cache, made by
// tools/image/image-app.mjs with the bench's Node; the image's environment, tools/image/node-runtime.json) against
// kubelet-sim on fixture nodes: spawn → ready (every resource registered and its first ListAndWatch message at
// the kubelet), and VmRSS and RssAnon after an idle window (the median of the last starts, which idle), each
// printed next to its target. Last, the same figures of a reference with no target: the Allocate bench's naive
// grpc-js plugin, bundled and started the same way, which only serves and registers (its start → ready is the part
// of every plugin's that is Node, grpc-js and this machine). The 3,000-Allocate figures are e2e's side-by-side harness.
// KDP_BENCH_SHORT=1: 2 starts, the last idling 3 s, per binary (default 7 starts, the last 3 idling 20 s).
// KDP_BENCH_JSON=FILE: also writes `{ "<metric>": number }` to FILE.
// KDP_BENCH_NODE=PATH: the Node that runs the plugins; `nx run @kdp/device-plugins:bench` sets it to the images'
// own (tools/image/runtime-node.mjs), default the Node running the bench.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildAllPluginsNode, buildPluginNode, PLUGIN_NAMES, type BenchNode } from './bench-nodes';
import { benchNode, bundleEntry, imageApp, imageProcessEnv } from '@kdp/kubelet-sim/testing';
import { measureStart, type StartResult, type StartTarget } from './measure-start';
import { formatMetrics, type Metric } from './format-metrics';

const SHORT = process.env['KDP_BENCH_SHORT'] === '1';
const JSON_FILE = process.env['KDP_BENCH_JSON'];
const STARTS = SHORT ? 2 : 7;
const IDLE_MS = SHORT ? 3_000 : 20_000;
/** How many of the starts idle and have their memory read (GC timing moves an idle reading by ~2 MiB). */
const IDLING = SHORT ? 1 : 3;
/** The Node the plugins run on. */
const NODE = benchNode();

/** Targets of issue 30. */
const TARGET = { readyMs: 300, pluginRssMiB: 56, pluginAnonMiB: 20, allInOneRssMiB: 72 };

/** `packages/` of the workspace: the bench runs from `packages/device-plugins/dist/bench/`. */
const PACKAGES = join(__dirname, '..', '..', '..');

/** What a binary runs with: its release bundle, its arguments and the resources it registers. */
interface BenchRun {
  /** The release bundle (`dist/main.js`, or the reference's bundle built the same way). */
  readonly bundle: string;
  /** Its arguments, given the kubelet's device-plugin directory. */
  readonly args: (devicePluginDir: string) => readonly string[];
  readonly resources: readonly string[];
  /** Deletes what `prepare` made (fixture tree, bundle). */
  remove(): void;
}

/** A binary to measure, and its figures' targets (none for the reference). */
interface BenchBinary {
  readonly key: string;
  readonly title: string;
  readonly prepare: () => BenchRun;
  readonly readyTargetMs?: number;
  readonly rssTargetMiB?: number;
  /** RssAnon's target (issue 30 sets it after 3,000 Allocates; idle is below it); none for the all-in-one. */
  readonly anonTargetMiB?: number;
}

/** A kdp binary's run: its `dist/main.js` serving its fixture node. */
const kdpRun = (bundle: string, node: BenchNode): BenchRun => ({
  bundle,
  args: (dir) => ['serve', ...node.args, '--device-plugin-dir', dir],
  resources: node.resources,
  remove: node.remove,
});

/** The resource the reference registers, with four device IDs. */
const NAIVE_RESOURCE = 'kdp.bench/naive-gpu';

/**
 * The reference: the Allocate bench's naive plugin (`plugin-gpu/bench/naive-device-plugin.ts`: grpc-js and the
 * generated service, no configuration, discovery, logging or health), bundled as the binaries are (minified,
 * `@grpc/proto-loader` replaced by core's stand-in) and started as they are, from an `/app` with its code cache
 * under the images' NODE_OPTIONS. Its start → ready is what serving and registering alone cost on this machine.
 */
function naiveRun(): BenchRun {
  const entry = bundleEntry(join(PACKAGES, 'plugin-gpu', 'bench', 'naive-device-plugin.ts'), {
    minify: true,
    alias: { '@grpc/proto-loader': join(PACKAGES, 'core', 'src', 'absent-proto-loader.ts') },
  });
  const ids = ['GPU-0', 'GPU-1', 'GPU-2', 'GPU-3'];
  return {
    bundle: entry.path,
    args: (dir) => [dir, NAIVE_RESOURCE, ...ids],
    resources: [NAIVE_RESOURCE],
    remove: entry.remove,
  };
}

const binaries: BenchBinary[] = [
  ...PLUGIN_NAMES.map((name) => ({
    key: name,
    title: `${name}-device-plugin`,
    prepare: () => kdpRun(join(PACKAGES, `plugin-${name}`, 'dist', 'main.js'), buildPluginNode(name)),
    readyTargetMs: TARGET.readyMs,
    rssTargetMiB: TARGET.pluginRssMiB,
    anonTargetMiB: TARGET.pluginAnonMiB,
  })),
  {
    key: 'device-plugins',
    title: 'kdp-device-plugins (all five)',
    prepare: () => kdpRun(join(PACKAGES, 'device-plugins', 'dist', 'main.js'), buildAllPluginsNode()),
    readyTargetMs: TARGET.readyMs,
    rssTargetMiB: TARGET.allInOneRssMiB,
  },
  { key: 'naive', title: 'reference: naive grpc-js plugin', prepare: naiveRun },
];

/** The median of ascending-sortable samples (the lower one of an even count). */
const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;

/** `target` as a Metric field, when there is one. */
const targetOf = (target: number | undefined): { target?: number } =>
  target === undefined ? {} : { target };

/** `STARTS` starts of one binary on a fresh fixture node; the last `IDLING` idle and have their memory read. */
async function measureBinary(binary: BenchBinary): Promise<Metric[]> {
  const run = binary.prepare();
  try {
    const target: StartTarget = {
      title: binary.title,
      node: NODE.path,
      env: imageProcessEnv(join(PACKAGES, '..')),
      // The image's /app/main.js, bundle and code cache (made by the same Node), as the image starts it.
      bundle: imageApp(join(PACKAGES, '..'), run.bundle, NODE.path),
      args: run.args,
      resources: run.resources,
    };
    await measureStart(target, { idleMs: 0 }); // warm-up: the page cache, kubelet-sim's own code
    const runs: StartResult[] = [];
    for (let i = 0; i < STARTS; i++)
      runs.push(await measureStart(target, { idleMs: i >= STARTS - IDLING ? IDLE_MS : 0 }));
    const ready = runs.map((r) => r.readyMs);
    const memory = runs.flatMap((r) => (r.memory !== undefined ? [r.memory] : []));
    const vmRss = median(memory.map((m) => m.vmRssMiB));
    const rssAnon = median(memory.map((m) => m.rssAnonMiB));
    const idle = `after ${IDLE_MS / 1000} s idle${IDLING > 1 ? `, median of ${IDLING}` : ''}`;
    const of = `${binary.title}:`;
    return [
      {
        key: `${binary.key}.start_to_ready_ms`,
        label: `${of} start → ready, p50 of ${STARTS}`,
        value: median(ready),
        unit: 'ms',
        ...targetOf(binary.readyTargetMs),
      },
      {
        key: `${binary.key}.start_to_ready_max_ms`,
        label: `${of} start → ready, max of ${STARTS}`,
        value: Math.max(...ready),
        unit: 'ms',
      },
      {
        key: `${binary.key}.idle_vmrss_mib`,
        label: `${of} VmRSS ${idle}`,
        value: vmRss,
        unit: 'MiB',
        ...targetOf(binary.rssTargetMiB),
      },
      {
        key: `${binary.key}.idle_rss_anon_mib`,
        label: `${of} RssAnon ${idle}`,
        value: rssAnon,
        unit: 'MiB',
        ...targetOf(binary.anonTargetMiB),
      },
    ];
  } finally {
    run.remove();
  }
}

async function main(): Promise<void> {
  const metrics: Metric[] = [];
  for (const binary of binaries) {
    process.stderr.write(`bench: ${binary.title} …\n`);
    metrics.push(...(await measureBinary(binary)));
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  process.stdout.write(
    `plugins on node ${NODE.version} (${NODE.path}), ${cpus().length} CPUs, load average ${load}${SHORT ? ', short mode' : ''}\n`,
  );
  process.stdout.write(formatMetrics(metrics));
  if (JSON_FILE !== undefined) {
    writeFileSync(
      JSON_FILE,
      `${JSON.stringify(Object.fromEntries(metrics.map((m) => [m.key, m.value])), null, 2)}\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
