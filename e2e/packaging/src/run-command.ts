import { spawn } from 'node:child_process';

/** How a command ended. */
export interface CommandResult {
  /** Exit code; null when killed by a signal (the timeout included). */
  readonly code: number | null;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
  /** stdout alone. */
  readonly stdout: string;
  /** Wall-clock duration. */
  readonly ms: number;
}

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  readonly cwd: string;
  /** Killed with SIGKILL after this long (default 5 min). */
  readonly timeoutMs?: number;
}

/**
 * The environment without the `npm_*` variables that an enclosing `npm test` exports (`npm_config_local_prefix`
 * and friends), so an npm run in a temp dir behaves as in a fresh shell there, not as part of the workspace.
 */
export function cleanEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
}

/** Runs a command (no shell) and resolves with its exit code and output; it never rejects on a non-zero exit. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout, ms: Math.round(performance.now() - started) });
    });
  });
}
