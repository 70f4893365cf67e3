// Health as device taints (issue 28, KEP 5055): how long after a device is made Unhealthy in the fixture its
// `kdp.dev/unhealthy` taint shows in `kubectl get resourceslices -o yaml` (the real kubectl), and how long after it
// recovers the taint is gone. The whole path: a fixture file changed → inotify → the plugin's scan → the DRA
// driver's pools → the ResourceSlice publisher → the DRA playground's API server → kubectl, which is polled (so a
// figure includes up to one kubectl run). `BENCH_RUNS` rounds (default 30; 5 short).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PluginDevice } from '@kdp/core';
import { definePlugin } from '@kdp/core/plugin';
import { kubectl } from '../src/testing/playground-pod-checks';
import { startPlaygroundDriver } from '../src/testing/start-playground-driver';
import { formatTable, percentile, SHORT, verdict } from './bench-table';

const RUNS = Number(process.env['BENCH_RUNS'] ?? (SHORT ? 5 : 30));
const DRIVER = 'bench.kdp.dev';
const DEVICES = 16;
/** Issue 28's target: the taint in `kubectl get resourceslices` within 1 s (p99). */
const TARGET_MS = 1000;
const TAINT = 'key: kdp.dev/unhealthy';

/** A plugin whose devices are the files of `<dir>`, each Healthy or Unhealthy by its first word, rescanned on change. */
function fixturePlugin(dir: string) {
  return definePlugin({
    name: 'bench',
    binary: 'bench-device-plugin',
    title: 'Devices from a fixture directory',
    version: '1.0.0',
    scan: {
      watch: () => ({ paths: [dir] }),
      run: () =>
        readdirSync(dir)
          .sort()
          .map((id): PluginDevice => {
            const [health, ...problem] = readFileSync(join(dir, id), 'utf8').trim().split(' ');
            return health === 'Healthy'
              ? { id, health: 'Healthy' }
              : { id, health: 'Unhealthy', problem: problem.join(' ') };
          }),
    },
    resources: (devices: PluginDevice[]) => ({ resources: [{ name: 'example.com/bench', devices }] }),
  });
}

/** Runs kubectl until `done` accepts its YAML; the milliseconds from `start`. */
async function until(kubeconfig: string, start: number, done: (yaml: string) => boolean): Promise<number> {
  const deadline = start + 30_000;
  for (;;) {
    const yaml = await kubectl(kubeconfig, ['get', 'resourceslices', '-o', 'yaml']);
    if (done(yaml)) return performance.now() - start;
    if (performance.now() > deadline) throw new Error(`not seen within 30 s:\n${yaml}`);
  }
}

/** Runs the taint bench: its table, and its figures by metric name (p99 ms). */
export async function runTaintBench(): Promise<{ text: string; figures: Record<string, number> }> {
  // The real kubectl, as the jest globalSetup of the specs provides it.
  if ((process.env['KDP_KUBECTL'] ?? '') === '') {
    const tools = createRequire(join(process.cwd(), 'package.json'))('./tools/kube-tools/kube-tools.cjs') as {
      kubeTools(): { kubectl: string };
    };
    process.env['KDP_KUBECTL'] = tools.kubeTools().kubectl;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kdp-taint-bench-'));
  const fixture = join(dir, 'devices');
  mkdirSync(fixture);
  for (let i = 0; i < DEVICES; i++) writeFileSync(join(fixture, `dev${i}`), 'Healthy\n');
  const setup = await startPlaygroundDriver({
    plugin: fixturePlugin(fixture),
    driver: DRIVER,
    dir: join(dir, 'node'),
    flags: ['--poll-interval', '1h'],
    devRoot: join(dir, 'dev'),
  });
  const tainted: number[] = [];
  const recovered: number[] = [];
  try {
    for (let run = -1; run < RUNS; run++) {
      const device = join(fixture, `dev${(run + 1) % DEVICES}`);
      let start = performance.now();
      writeFileSync(device, `Unhealthy ECC error count ${run + 1}\n`);
      const up = await until(setup.kubeconfig, start, (yaml) => yaml.includes(TAINT));
      start = performance.now();
      writeFileSync(device, 'Healthy\n');
      const down = await until(setup.kubeconfig, start, (yaml) => !yaml.includes(TAINT));
      if (run < 0) continue;
      tainted.push(up);
      recovered.push(down);
    }
  } finally {
    await setup.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: [string, string, number[]][] = [
    ['device made Unhealthy → taint shown', 'dra.taint.add', tainted],
    ['device recovered → taint gone', 'dra.taint.remove', recovered],
  ];
  const figures: Record<string, number> = {};
  const table = rows.map(([label, metric, samples]) => {
    const p99 = percentile(samples, 0.99);
    figures[`${metric}.p99`] = p99;
    return [
      label,
      percentile(samples, 0.5).toFixed(1),
      p99.toFixed(1),
      Math.max(...samples).toFixed(1),
      verdict(p99, TARGET_MS),
    ];
  });
  const text = [
    `Health as device taints: a fixture file of one of ${DEVICES} devices changed, then \`kubectl get resourceslices -o yaml\``,
    `(the real kubectl) polled until the taint shows or is gone; ${RUNS} rounds after 1 warm-up, the DRA playground`,
    'and the driver in this process.',
    '',
    formatTable(['case', 'p50 ms', 'p99 ms', 'max ms', 'target (p99)'], table),
  ].join('\n');
  return { text, figures };
}
