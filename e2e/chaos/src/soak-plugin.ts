import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { readdirSync } from 'node:fs';
import { rssMiB } from '@kdp/kubelet-sim/testing';

/** One JSON log line of the plugin process (pino style), with the fields the soak looks at. */
export interface SoakLogLine {
  /** The plugin that wrote it (`kdp-device-plugins` tags each plugin's lines); undefined for process lines. */
  readonly plugin: string | undefined;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** How a plugin process ended. */
export interface SoakExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether the soak asked for it (SIGKILL, or SIGTERM at the end). */
  readonly expected: boolean;
  /** Its last lines of output. */
  readonly tail: readonly string[];
}

/** What a process holds: RSS, open file descriptors and its V8 heap. */
export interface ProcessUsage {
  readonly rssMiB: number;
  readonly fds: number;
  /** `nodejs_heap_size_used_bytes` of its /metrics in MiB (garbage included); undefined before its URL is known. */
  readonly heapMiB: number | undefined;
  /** The heap its latest full collection left (`--trace-gc`, Mark-Compact), in MiB: what was live then. */
  readonly afterGcMiB: number | undefined;
  /** How many full collections it made so far. */
  readonly fullGcs: number;
}

/** The plugin process under test. */
export interface SoakPlugin {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Emits `line` (a {@link SoakLogLine}) for every JSON line it writes. */
  readonly lines: EventEmitter;
  /** Resolves once it exited. */
  readonly exited: Promise<SoakExit>;
  /** Its last lines of output (at most 40). */
  tail(): string[];
  /** RSS from `/proc/<pid>/status`, the entries of `/proc/<pid>/fd`, its heap from /metrics and `--trace-gc`. */
  usage(): Promise<ProcessUsage>;
  /** Sends a signal (SIGHUP: reload); a SIGKILL or SIGTERM sent here makes its exit an expected one. */
  signal(signal: NodeJS.Signals): void;
}

const TAIL_LINES = 40;

/** A `--trace-gc` line of a full collection: `Mark-Compact 25.5 (55.1) -> 6.4 (40.4) MB` (sizes in MiB). */
const FULL_GC = /: Mark-Compact(?: \([a-z ]+\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

/**
 * Spawns `node --trace-gc <bundle> <args> --metrics-address 127.0.0.1:0` and follows its output line by line: its
 * JSON log lines, its /metrics URL (from its `serving /metrics` line) and V8's full collections.
 */
export function startSoakPlugin(bundle: string, args: readonly string[]): SoakPlugin {
  const child = spawn(process.execPath, ['--trace-gc', bundle, ...args, '--metrics-address', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${bundle}`);
  const lines = new EventEmitter();
  lines.setMaxListeners(0);
  const tail: string[] = [];
  let expected = false;
  let metricsUrl: string | undefined;
  let afterGcMiB: number | undefined;
  let fullGcs = 0;
  const onLine = (text: string): void => {
    if (text.trim() === '') return;
    const gc = FULL_GC.exec(text);
    if (gc !== null) {
      afterGcMiB = Number(gc[1]);
      fullGcs += 1;
      return;
    }
    tail.push(text);
    if (tail.length > TAIL_LINES) tail.shift();
    const line = parseLogLine(text);
    if (line === undefined) return;
    if (line.msg.startsWith('serving /metrics') && typeof line.fields['url'] === 'string')
      metricsUrl = `${line.fields['url']}/metrics`;
    lines.emit('line', line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.on('data', (chunk: Buffer) => {
      const parts = (pending + chunk.toString()).split('\n');
      pending = parts.pop() ?? '';
      parts.forEach(onLine);
    });
    stream?.on('end', () => onLine(pending));
  }
  const exited = (once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>).then(
    ([code, signal]) => ({ code, signal, expected, tail: [...tail] }),
  );
  return {
    child,
    pid,
    lines,
    exited,
    tail: () => [...tail],
    usage: async () => {
      // /metrics first: its kept-alive connection is then open at every count of fds, not only at some.
      const heapMiB = metricsUrl === undefined ? undefined : await heapUsedMiB(metricsUrl);
      const fds = readdirSync(`/proc/${pid}/fd`).length;
      return { rssMiB: rssMiB(pid), fds, heapMiB, afterGcMiB, fullGcs };
    },
    signal: (signal) => {
      if (signal === 'SIGKILL' || signal === 'SIGTERM') expected = true;
      child.kill(signal);
    },
  };
}

/** `nodejs_heap_size_used_bytes` of a /metrics page, in MiB. */
async function heapUsedMiB(url: string): Promise<number | undefined> {
  const text = await (await fetch(url)).text();
  const bytes = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text)?.[1];
  return bytes === undefined ? undefined : Number(bytes) / 2 ** 20;
}

function parseLogLine(text: string): SoakLogLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const plugin = typeof fields['plugin'] === 'string' ? fields['plugin'] : undefined;
  return { plugin, msg: typeof fields['msg'] === 'string' ? fields['msg'] : '', fields };
}

/** Ends a plugin process with SIGTERM (SIGKILL after Kubernetes' 30 s grace period) and resolves with its exit. */
export async function stopSoakPlugin(plugin: SoakPlugin): Promise<SoakExit> {
  plugin.signal('SIGTERM');
  const timer = setTimeout(() => plugin.child.kill('SIGKILL'), 30_000);
  const exit = await plugin.exited;
  clearTimeout(timer);
  return exit;
}
