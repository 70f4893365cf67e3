import { spawn } from 'node:child_process';
import { dirname } from 'node:path';

/** What a kubectl run printed and how it exited. */
export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The pinned kubectl, from `KDP_KUBECTL` (set by the jest globalSetup). */
function kubectlPath(): string {
  const path = process.env['KDP_KUBECTL'];
  if (path === undefined || path === '')
    throw new Error('KDP_KUBECTL is unset: run through packages/kubelet-sim/jest.config.cjs');
  return path;
}

/** Runs kubectl with `kubeconfig` and `args`, `stdin` piped in; HOME is the kubeconfig's directory (kubectl's cache stays there). */
export function runKubectl(
  kubeconfig: string,
  args: readonly string[],
  stdin?: string,
  timeoutMs = 60_000,
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      env: { ...process.env, HOME: dirname(kubeconfig) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** Runs kubectl and throws with its output unless it exits 0; resolves with stdout. */
export async function kubectl(kubeconfig: string, args: readonly string[], stdin?: string): Promise<string> {
  const result = await runKubectl(kubeconfig, args, stdin);
  if (result.code !== 0) {
    throw new Error(
      `kubectl ${args.join(' ')} exited ${String(result.code)}:\n${result.stderr}${result.stdout}`,
    );
  }
  return result.stdout;
}

/**
 * Watches `object` (`pod/name`) with `kubectl get -w` until `jsonpath` prints `expected`; rejects with what
 * it printed after `timeoutMs`.
 */
export function kubectlWatchFor(
  kubeconfig: string,
  object: string,
  jsonpath: string,
  expected: string,
  timeoutMs = 60_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      kubectlPath(),
      ['--kubeconfig', kubeconfig, 'get', object, '-w', '-o', `jsonpath=${jsonpath}{"\\n"}`],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HOME: dirname(kubeconfig) },
      },
    );
    let out = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(
        new Error(
          `kubectl get ${object} -w never printed ${JSON.stringify(expected)} for ${jsonpath}:\n${out}`,
        ),
      );
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.split('\n').includes(expected)) return;
      clearTimeout(timer);
      child.kill();
      resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
  });
}
