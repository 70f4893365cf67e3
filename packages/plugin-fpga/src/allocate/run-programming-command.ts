import { execFile, type ExecFileOptions } from 'node:child_process';

/** How a programming command ended. */
export type CommandOutcome =
  | { readonly ok: true; readonly output: string; readonly durationMs: number }
  | {
      readonly ok: false;
      readonly why: 'timeout' | 'exit' | 'signal' | 'spawn' | 'aborted';
      readonly message: string;
      readonly output: string;
      readonly durationMs: number;
    };

/** Options of {@link runProgrammingCommand}. */
export interface RunCommandOptions {
  /** Absolute path of the program. */
  readonly program: string;
  /** Arguments, passed as an array: no shell ever parses them. */
  readonly args: readonly string[];
  readonly timeoutMs: number;
  /** Aborts (kills) the command, e.g. when the kubelet cancels PreStartContainer. */
  readonly signal?: AbortSignal;
  /** Captured output kept for messages, per stream (default 64 KiB). */
  readonly maxBuffer?: number;
}

const ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' };

/** The last `max` characters of a command's output, on one line, for an error message. */
export function outputTail(output: string, max = 400): string {
  const flat = output.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `…${flat.slice(-max)}` : flat;
}

/**
 * Runs a configured programming command with execFile (never a shell), a minimal environment, a hard timeout
 * (SIGKILL, and the pipes are closed so a forked child cannot hold the answer back), and stdout/stderr captured. Never rejects.
 */
export function runProgrammingCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    const execOptions: ExecFileOptions = {
      env: ENV,
      maxBuffer: options.maxBuffer ?? 64 * 1024,
      windowsHide: true,
      encoding: 'utf8',
    };
    const child = execFile(options.program, [...options.args], execOptions, (error, stdout, stderr) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const output = `${String(stdout)}${String(stderr)}`;
      const durationMs = Date.now() - started;
      if (error === null) {
        resolve({ ok: true, output, durationMs });
        return;
      }
      const failure = error as NodeJS.ErrnoException & { code?: number | string; signal?: string | null };
      const [why, message]: [Exclude<CommandOutcome, { ok: true }>['why'], string] = timedOut
        ? ['timeout', `timed out after ${options.timeoutMs} ms and was killed`]
        : aborted
          ? ['aborted', 'was cancelled (the kubelet gave up on PreStartContainer)']
          : typeof failure.code === 'number'
            ? ['exit', `exited with code ${failure.code}`]
            : typeof failure.signal === 'string' && failure.signal !== ''
              ? ['signal', `was killed by ${failure.signal}`]
              : ['spawn', `could not run: ${failure.message}`];
      resolve({ ok: false, why, message, output, durationMs });
    });
    // Kill the command and stop reading its pipes: a process it forked may still hold them open, and the
    // answer must not wait for it (the kubelet's deadline is 30 s).
    const killCommand = (): void => {
      child.kill('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killCommand();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killCommand();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
