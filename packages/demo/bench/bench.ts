// The demo's benchmark (`nx run @kdp/demo:bench`): `kdp-device-plugins` with all five plugins and each plugin
// on its own, on the demo's sample node against kubelet-sim, one process at a time. Per process: start → all
// its resources registered (spawn to the last `registered` event, on kubelet-sim's event clock), then RSS and CPU
// over an idle window. Options: --idle 60s (the window), --only all|gpu|sriov|infiniband|usb|fpga (a list).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { clockTicks, cpuTicks, parseBenchDuration, rssMiB, stopProcess } from '@kdp/kubelet-sim/testing';
import { formatTable } from '../src/format-table';
import { PLUGIN_NAMES, type PluginName } from '../src/plugin-names';
import { ALL_IN_ONE, allInOneArgs, now, pluginArgs, type PluginEnvironment } from '../src/plugin-processes';
import { createSampleNode } from '../src/sample-node/create-sample-node';
import { EXPECTED_RESOURCES } from '../src/sample-node/sample-configs';
import { bundleAllInOne, bundlePlugins } from '../src/testing/bundle-plugins';
import { waitUntil } from '../src/wait-until';

const USAGE = `Usage: bench [--idle DURATION] [--only all|gpu|sriov|infiniband|usb|fpga[,…]]

  --idle DURATION   the idle window after registration (500ms, 60s, 2m) [60s]
  --only LIST       run only these: all (kdp-device-plugins with all five) and/or single plugins [all of them]
`;

/** How long a process may take to register its resources, and to stop, before the bench gives up. */
const REGISTRATION_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;

type Subject = 'all' | PluginName;
const SUBJECTS: readonly Subject[] = ['all', ...PLUGIN_NAMES];

interface BenchArgs {
  readonly idleMs: number;
  readonly only: readonly Subject[];
}

interface Measurement {
  readonly subject: Subject;
  readonly resources: number;
  readonly devices: number;
  readonly startMs: number;
  readonly rssMiB: number;
  readonly cpuTicks: number;
  readonly idleMs: number;
}

function parseArgs(argv: readonly string[]): BenchArgs {
  let idleMs = 60_000;
  let only: readonly Subject[] = SUBJECTS;
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--idle') idleMs = parseBenchDuration(value(), flag);
    else if (flag === '--only') {
      const names = value().split(',');
      const unknown = names.filter((n) => !SUBJECTS.includes(n as Subject));
      if (unknown.length > 0) throw new Error(`--only: unknown "${unknown.join(',')}"`);
      only = SUBJECTS.filter((s) => names.includes(s));
    } else throw new Error(`unknown argument "${argv[i]}"`);
  }
  return { idleMs, only };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One process on a fresh sample node: spawn, wait for its resources, idle, measure, stop. */
async function measure(subject: Subject, bundleDir: string, idleMs: number): Promise<Measurement> {
  const node = createSampleNode();
  const base = node.root;
  const env: PluginEnvironment = {
    node,
    packagesDir: bundleDir,
    devicePluginDir: join(base, 'dp'),
    cdiDir: join(base, 'cdi'),
    devinfoDir: join(base, 'devinfo'),
    logFile: join(base, 'plugin.log'),
  };
  for (const dir of [env.cdiDir, env.devinfoDir]) mkdirSync(dir, { recursive: true });
  const expected = EXPECTED_RESOURCES.filter((e) => subject === 'all' || e.plugin === subject);
  let sim: KubeletSim | undefined;
  const log = openSync(env.logFile, 'a');
  try {
    sim = await createKubeletSim({ dir: env.devicePluginDir });
    const current = sim;
    const registeredAt = new Map<string, number>();
    const onRegistered = (event: { resource: string; at: number }): void => {
      if (!registeredAt.has(event.resource)) registeredAt.set(event.resource, event.at);
    };
    current.events.on('registered', onRegistered);
    const [bundle = '', ...args] = subject === 'all' ? allInOneArgs(env) : pluginArgs(subject, env);
    const spawnedAt = now();
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', log, log] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const died = exited.then(() => {
      throw new Error(`${subject}: the process exited (log: ${env.logFile})`);
    });
    died.catch(() => undefined); // raced below; this only keeps a later exit from going unhandled
    try {
      const pid = child.pid;
      if (pid === undefined) throw new Error(`${subject}: the process did not start`);
      await Promise.race([
        waitUntil(
          current,
          () => {
            const ready = expected.every((e) => {
              const state = current.resource(e.resource);
              return (
                registeredAt.has(e.resource) &&
                state?.registered === true &&
                state.devices.length >= e.devices
              );
            });
            return ready ? true : undefined;
          },
          REGISTRATION_TIMEOUT_MS,
          () =>
            `${subject}: not every resource registered within ${REGISTRATION_TIMEOUT_MS / 1000} s (${env.logFile})`,
        ),
        died,
      ]);
      current.events.off('registered', onRegistered);
      const startMs =
        Math.max(...expected.map((e) => registeredAt.get(e.resource) ?? Number.NaN)) - spawnedAt;
      const ticksBefore = cpuTicks(pid);
      const idleStart = now();
      await sleep(idleMs);
      const ticks = cpuTicks(pid) - ticksBefore;
      const idle = now() - idleStart;
      const rss = rssMiB(pid);
      return {
        subject,
        resources: expected.length,
        devices: expected.reduce((sum, e) => sum + e.devices, 0),
        startMs,
        rssMiB: rss,
        cpuTicks: ticks,
        idleMs: idle,
      };
    } finally {
      await stopProcess(child, STOP_GRACE_MS);
    }
  } finally {
    await sim?.close();
    closeSync(log);
    node.remove();
  }
}

function label(subject: Subject): string {
  return subject === 'all' ? `${ALL_IN_ONE} (all five)` : `${subject}-device-plugin`;
}

function row(m: Measurement, hz: number): string[] {
  const cpu = (m.cpuTicks / hz / (m.idleMs / 1000)) * 100;
  return [
    label(m.subject),
    `${m.resources} / ${m.devices}`,
    `${Math.round(m.startMs)} ms`,
    `${m.rssMiB.toFixed(1)} MiB`,
    `${cpu.toFixed(2)} % (${m.cpuTicks} ticks)`,
  ];
}

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const packagesDir = join(process.cwd(), 'packages');
  const bundleDir = join(packagesDir, 'demo', 'dist', 'bench');
  bundlePlugins(bundleDir, { packagesDir });
  bundleAllInOne(bundleDir, { packagesDir });
  const hz = clockTicks();
  const idle = `${args.idleMs / 1000} s`;
  process.stdout.write(
    `kdp demo bench: the sample node (9 resources, 17 devices), one process at a time; idle window ${idle}; ` +
      `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${hz} ticks/s\n\n`,
  );
  const header = [
    'PROCESS',
    'RESOURCES / DEVICES',
    'START → REGISTERED',
    `RSS AFTER ${idle} IDLE`,
    `CPU OVER ${idle} IDLE`,
  ];
  const measurements: Measurement[] = [];
  for (const subject of args.only) {
    process.stderr.write(`bench: ${label(subject)} …\n`);
    measurements.push(await measure(subject, bundleDir, args.idleMs));
  }
  const rows = measurements.map((m) => row(m, hz));
  const singles = measurements.filter((m) => m.subject !== 'all');
  if (singles.length === PLUGIN_NAMES.length) {
    const sum = (pick: (m: Measurement) => number): number =>
      singles.reduce((total, m) => total + pick(m), 0);
    const cpu = (sum((m) => m.cpuTicks / hz / (m.idleMs / 1000)) * 100).toFixed(2);
    rows.push([
      'sum of the five single plugins',
      `${sum((m) => m.resources)} / ${sum((m) => m.devices)}`,
      `(slowest ${Math.round(Math.max(...singles.map((m) => m.startMs)))} ms)`,
      `${sum((m) => m.rssMiB).toFixed(1)} MiB`,
      `${cpu} % (${sum((m) => m.cpuTicks)} ticks)`,
    ]);
  }
  process.stdout.write(`${formatTable([header, ...rows]).join('\n')}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
