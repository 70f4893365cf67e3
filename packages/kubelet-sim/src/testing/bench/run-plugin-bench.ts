import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@kdp/base';
import { createKubeletSim } from '../../kubelet-sim';
import type { KubeletSim } from '../../kubelet-sim-types';
import type { SimEvent } from '../../sim-events';
import { clockTicks, cpuTicks, rssMiB } from './process-usage';
import { stopProcess } from './stop-process';

/** One change: a cycle is a list of steps run in order, repeated `rounds` times. */
export interface BenchStep {
  /** What changes, e.g. `health down`, `health up`, `device added`, `device removed`; latencies are per kind. */
  readonly kind: string;
  /** Mutates the fixture tree; `round` counts from 0. */
  apply(round: number): void | Promise<void>;
  /** True once kubelet-sim's state shows the change (it must be false before `apply`). */
  seen(sim: KubeletSim): boolean;
  /** The p99 target of this kind in ms; default 1000 (event-driven kinds, e.g. /dev inotify: 100). */
  readonly targetMs?: number;
}

/** A plugin binary, its fixture and the changes to time, for `runPluginBench`. */
export interface PluginBenchScenario {
  /** What is measured, e.g. `sriov-device-plugin, 8 PFs × 256 VFs`. */
  readonly title: string;
  /** Absolute path of the plugin's built bundle (its `dist/main.js`), run as `node <bundle> …args`. */
  readonly bundle: string;
  /** The plugin's arguments (`serve`, roots, `--config` …) for kubelet-sim's device-plugin directory. */
  readonly args: (devicePluginDir: string) => readonly string[];
  /** True once every expected resource is registered with its devices. */
  readonly ready: (sim: KubeletSim) => boolean;
  /** The cycles of changes, e.g. `[[down, up], [removed, added]]`. */
  readonly cycles: ReadonlyArray<readonly BenchStep[]>;
}

/** Options of `runPluginBench`. */
export interface PluginBenchOptions {
  /** The idle window after registration, over which CPU is measured; default 60 s. */
  readonly idleMs?: number;
  /** How often each cycle runs; default 50. */
  readonly rounds?: number;
  /** Each step first waits a random delay in [0, this) ms, so the plugin's poll phase is sampled; default 1000. */
  readonly maxDelayMs?: number;
  /** How long the plugin may take to become `ready`; default 120 s. */
  readonly readyTimeoutMs?: number;
  /** How long one change may take to reach kubelet-sim before the bench fails; default 30 s. */
  readonly changeTimeoutMs?: number;
  /** Random numbers in [0, 1) for the delays; default `Math.random`. */
  readonly random?: () => number;
  /** Where the bench's private temp dir (device-plugin dir, plugin log) is made; default the OS temp dir. */
  readonly tmpDir?: string;
  /** Progress lines (phases, never per change); default none. */
  readonly progress?: (line: string) => void;
}

/** Change → kubelet-sim latencies of one step kind. */
export interface StepLatencies {
  readonly kind: string;
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The p99 target (the step's `targetMs`). */
  readonly targetMs: number;
}

/** What `runPluginBench` measured. */
export interface PluginBenchResult {
  readonly title: string;
  /** Spawn → `ready`, on kubelet-sim's event clock. */
  readonly startMs: number;
  /** The idle window as it really lasted. */
  readonly idleMs: number;
  /** utime + stime of the plugin over the idle window. */
  readonly idleTicks: number;
  /** Clock ticks per second of `idleTicks`. */
  readonly ticksPerSecond: number;
  /** Idle CPU in percent of one core. */
  readonly idleCpuPercent: number;
  /** VmRSS at the end of the idle window. */
  readonly rssMiB: number;
  readonly rounds: number;
  /** One entry per step kind, in the order the kinds first appear in the cycles. */
  readonly latencies: readonly StepLatencies[];
  /** Where it ran: `node v20.x, 2 CPUs (model)`. */
  readonly environment: string;
}

const STOP_GRACE_MS = 10_000;

/** The nearest-rank percentile `p` (0–100) of ascending `sorted` samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? Number.NaN;
}

/**
 * Resolves with the `at` of the kubelet-sim event after which `check` holds (`now` if it holds at once);
 * rejects with `describe()` after `timeoutMs`, or when `died` rejects.
 */
function whenSeen(
  sim: KubeletSim,
  check: () => boolean,
  timeoutMs: number,
  describe: () => string,
  died: Promise<never>,
): Promise<number> {
  if (check()) return Promise.resolve(systemClock.now());
  let cleanup = (): void => undefined;
  const seen = new Promise<number>((resolve, reject) => {
    const onEvent = (event: SimEvent): void => {
      if (!check()) return;
      cleanup();
      resolve(event.at);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(describe()));
    }, timeoutMs);
    cleanup = () => {
      clearTimeout(timer);
      sim.events.off('event', onEvent);
    };
    sim.events.on('event', onEvent);
  });
  return Promise.race([seen, died]).finally(() => cleanup());
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Benchmarks a plugin binary against kubelet-sim: spawns it on a fresh device-plugin directory, waits until
 * `ready`, measures CPU and RSS over an idle window, then times every step of every cycle, `rounds` times,
 * from the fixture change to the kubelet-sim event that shows it. On failure the plugin's log is kept and named.
 */
export async function runPluginBench(
  scenario: PluginBenchScenario,
  options: PluginBenchOptions = {},
): Promise<PluginBenchResult> {
  const idleMs = options.idleMs ?? 60_000;
  const rounds = options.rounds ?? 50;
  const maxDelayMs = options.maxDelayMs ?? 1000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const changeTimeoutMs = options.changeTimeoutMs ?? 30_000;
  const random = options.random ?? Math.random;
  const progress = options.progress ?? ((): void => undefined);
  const base = mkdtempSync(join(options.tmpDir ?? tmpdir(), 'kdp-bench-'));
  const logFile = join(base, 'plugin.log');
  const log = openSync(logFile, 'a');
  let failed = true;
  let sim: KubeletSim | undefined;
  try {
    sim = await createKubeletSim({ dir: join(base, 'dp') });
    const current = sim;
    const spawnedAt = systemClock.now();
    const child = spawn(process.execPath, [scenario.bundle, ...scenario.args(current.dir)], {
      stdio: ['ignore', log, log],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const died = exited.then((): never => {
      throw new Error(`${scenario.title}: the plugin exited (log: ${logFile})`);
    });
    died.catch(() => undefined); // raced below; this only keeps a later exit from going unhandled
    try {
      const pid = child.pid;
      if (pid === undefined) throw new Error(`${scenario.title}: the plugin did not start (log: ${logFile})`);
      progress(`${scenario.title}: waiting for registration …`);
      const readyAt = await whenSeen(
        current,
        () => scenario.ready(current),
        readyTimeoutMs,
        () => `${scenario.title}: not ready within ${readyTimeoutMs / 1000} s (log: ${logFile})`,
        died,
      );
      progress(`${scenario.title}: idle for ${idleMs / 1000} s …`);
      const ticksBefore = cpuTicks(pid);
      const idleStart = systemClock.now();
      await Promise.race([sleep(idleMs), died]);
      const idleTicks = cpuTicks(pid) - ticksBefore;
      const idleElapsed = systemClock.now() - idleStart;
      const rss = rssMiB(pid);
      const ticksPerSecond = clockTicks();

      const samples = new Map<string, { targetMs: number; ms: number[] }>();
      for (const cycle of scenario.cycles) {
        for (const step of cycle) {
          if (!samples.has(step.kind)) samples.set(step.kind, { targetMs: step.targetMs ?? 1000, ms: [] });
        }
      }
      progress(`${scenario.title}: ${rounds} rounds of ${[...samples.keys()].join(', ')} …`);
      for (const cycle of scenario.cycles) {
        for (let round = 0; round < rounds; round++) {
          for (const step of cycle) {
            const what = `${scenario.title}: "${step.kind}" (round ${round + 1})`;
            await Promise.race([sleep(random() * maxDelayMs), died]);
            if (step.seen(current)) throw new Error(`${what}: seen before the change was applied`);
            const t0 = systemClock.now();
            const at = whenSeen(
              current,
              () => step.seen(current),
              changeTimeoutMs,
              () => `${what}: not seen within ${changeTimeoutMs / 1000} s (log: ${logFile})`,
              died,
            );
            // Events emitted while an async apply still runs count: the listener is attached before it.
            at.catch(() => undefined);
            await step.apply(round);
            samples.get(step.kind)?.ms.push((await at) - t0);
          }
        }
      }
      failed = false;
      return {
        title: scenario.title,
        startMs: readyAt - spawnedAt,
        idleMs: idleElapsed,
        idleTicks,
        ticksPerSecond,
        idleCpuPercent: (idleTicks / ticksPerSecond / (idleElapsed / 1000)) * 100,
        rssMiB: rss,
        rounds,
        latencies: [...samples].map(([kind, { targetMs, ms }]) => {
          const sorted = [...ms].sort((a, b) => a - b);
          return {
            kind,
            count: sorted.length,
            p50Ms: percentile(sorted, 50),
            p99Ms: percentile(sorted, 99),
            maxMs: sorted[sorted.length - 1] ?? Number.NaN,
            targetMs,
          };
        }),
        environment: `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
      };
    } finally {
      await stopProcess(child, STOP_GRACE_MS);
    }
  } finally {
    await sim?.close();
    closeSync(log);
    if (!failed) rmSync(base, { recursive: true, force: true });
  }
}
