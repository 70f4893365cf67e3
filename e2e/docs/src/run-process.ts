import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository root. */
export const workspaceRoot = resolve(__dirname, '../../..');

/** What a finished process printed (stdout and stderr interleaved as received) and its exit code. */
export interface ProcessResult {
  readonly code: number;
  readonly output: string;
}

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  /** Working directory (default: the repository root). */
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs a program with an argument array (no shell) and resolves with its exit code and output; never rejects
 * on a non-zero exit, so a test can show the output of a failing tool.
 */
export function runProcess(
  file: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const child = execFile(file, args, {
      cwd: options.cwd ?? workspaceRoot,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...options.env },
      maxBuffer: 64 * 1024 * 1024,
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolvePromise({ code: code ?? (signal === null ? 0 : 128), output }),
    );
  });
}

/** Runs a Node.js script of the workspace (a path relative to the repository root) with `node`. */
export function runNodeScript(
  script: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  return runProcess(process.execPath, [resolve(workspaceRoot, script), ...args], options);
}
