import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createKubeletSim, type SimEvent } from '@kdp/kubelet-sim';
import { stopProcess } from '@kdp/kubelet-sim/testing';

/** A plugin binary as its image runs it, on a fixture node. */
export interface StartTarget {
  /** What runs, e.g. `gpu` or `kdp-device-plugins (all five)`. */
  readonly title: string;
  /** The Node binary that runs it; default the bench's own. */
  readonly node?: string;
  /** The built bundle (`dist/main.js`). */
  readonly bundle: string;
  /** Its arguments, given the kubelet's device-plugin directory (kdp's: `serve`, flags, `--device-plugin-dir DIR`). */
  readonly args: (devicePluginDir: string) => readonly string[];
  /** The plugin's whole environment (the image's `Env`, `imageProcessEnv`); nothing of the bench's is added. */
  readonly env: Readonly<Record<string, string>>;
  /** Every resource it registers: ready once each has sent its first ListAndWatch message. */
  readonly resources: readonly string[];
}

/** Private memory of a process, from `/proc/<pid>/status`. */
export interface ProcessMemory {
  readonly vmRssMiB: number;
  readonly rssAnonMiB: number;
}

/** One start of a plugin binary. */
export interface StartResult {
  /** Spawn → every resource registered and its first ListAndWatch message at the kubelet. */
  readonly readyMs: number;
  /** Memory after `idleMs` of idling (absent when `idleMs` was 0). */
  readonly memory?: ProcessMemory;
}

/** Options of {@link measureStart}. */
export interface MeasureStartOptions {
  /** How long it idles after ready before its memory is read; 0 stops it at ready. */
  readonly idleMs: number;
  /** How long it may take to become ready; default 60 s. */
  readonly readyTimeoutMs?: number;
}

/** `VmRSS` and `RssAnon` of a process, in MiB. */
export function readProcessMemory(pid: number, procRoot = '/proc'): ProcessMemory {
  const status = readFileSync(`${procRoot}/${pid}/status`, 'utf8');
  const mib = (field: string): number => {
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    if (kib === undefined) throw new Error(`no ${field} in ${procRoot}/${pid}/status`);
    return Number(kib) / 1024;
  };
  return { vmRssMiB: mib('VmRSS'), rssAnonMiB: mib('RssAnon') };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `target` against a fresh kubelet-sim, times spawn → ready, then (with `idleMs`) lets it idle and
 * reads its memory; stops it with SIGTERM. On failure the plugin's log is kept and named in the error.
 */
export async function measureStart(target: StartTarget, options: MeasureStartOptions): Promise<StartResult> {
  const base = mkdtempSync(join(tmpdir(), 'kdp-memory-bench-'));
  const logFile = join(base, 'plugin.log');
  const log = openSync(logFile, 'a');
  const sim = await createKubeletSim({ dir: join(base, 'dp') });
  let failed = true;
  try {
    const waiting = new Set(target.resources);
    let onEvent = (_event: SimEvent): void => undefined;
    const ready = new Promise<number>((resolve) => {
      onEvent = (event) => {
        if (event.type !== 'devices' || !waiting.delete(event.resource) || waiting.size > 0) return;
        resolve(performance.now());
      };
      sim.events.on('event', onEvent);
    });
    const spawnedAt = performance.now();
    const child = spawn(target.node ?? process.execPath, [target.bundle, ...target.args(sim.dir)], {
      stdio: ['ignore', log, log],
      env: target.env,
    });
    try {
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', () => reject(new Error(`${target.title}: exited (log: ${logFile})`))),
      );
      exited.catch(() => undefined);
      const timeoutMs = options.readyTimeoutMs ?? 60_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        const what = (): string => [...waiting].join(', ');
        timer = setTimeout(
          () =>
            reject(
              new Error(`${target.title}: not ready in ${timeoutMs} ms, no ${what()} (log: ${logFile})`),
            ),
          timeoutMs,
        );
      });
      const readyAt = await Promise.race([ready, exited, timeout]).finally(() => clearTimeout(timer));
      sim.events.off('event', onEvent);
      let memory: ProcessMemory | undefined;
      if (options.idleMs > 0 && child.pid !== undefined) {
        await Promise.race([sleep(options.idleMs), exited]);
        memory = readProcessMemory(child.pid);
      }
      failed = false;
      return { readyMs: readyAt - spawnedAt, ...(memory !== undefined ? { memory } : {}) };
    } finally {
      await stopProcess(child);
    }
  } finally {
    await sim.close();
    closeSync(log);
    if (!failed) rmSync(base, { recursive: true, force: true });
  }
}
