import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Options of {@link createRuncContainer}. */
export interface RuncContainerOptions {
  /** An OCI image reference for umoci, `<layout>:<tag>`. */
  readonly image: string;
  /** A fresh directory for the runc bundle (umoci unpacks into it). */
  readonly bundle: string;
  /** The container id. */
  readonly id: string;
  /** Arguments after the image's entrypoint (replacing its Cmd). */
  readonly args: readonly string[];
  /** Host directories bind-mounted read-only at the same path. */
  readonly readOnly: readonly string[];
  /** Host directories bind-mounted read-write at the same path. */
  readonly writable: readonly string[];
  /** Share the host's network namespace (as a hostNetwork pod), so the host can reach its HTTP endpoints. */
  readonly hostNetwork?: boolean;
  /** Replaces the image's Entrypoint, as a pod's `command` does (`args` then follow it). */
  readonly command?: readonly string[];
  /** Variables added to the image's environment (a pod's `env`; a name given here wins). */
  readonly env?: Readonly<Record<string, string>>;
  /** The working directory (a pod's `workingDir`; default the image's). */
  readonly cwd?: string;
  /** Host paths bind-mounted at other paths in the container (a pod's volumeMounts). */
  readonly binds?: ReadonlyArray<{ source: string; destination: string; readOnly: boolean }>;
  /**
   * Runs once the container exists and before its process starts (`runc create`, then `runc start`), given the
   * container's init pid: e.g. mounts runc refuses in the spec, in place before the plugin looks.
   */
  readonly beforeStart?: (pid: number) => Promise<void>;
}

/** A detached container started with `runc run --detach` (or `runc create` and `runc start`). */
export interface RuncContainer {
  /** The container's init process as the host sees it. */
  readonly pid: number;
  /** The container's stdout and stderr so far. */
  log(): string;
  /** The process's resident set in KiB (VmRSS, and RssAnon: its part not backed by files), or undefined once it has exited. */
  memoryKiB(): { rss: number; anon: number } | undefined;
  /** Resolves once the container's process has exited (polls /proc, bounded by `timeoutMs`). */
  exited(timeoutMs: number): Promise<boolean>;
  /** `runc delete --force`: kills and removes the container (idempotent). */
  remove(): Promise<void>;
}

interface RuntimeSpec {
  process: {
    terminal: boolean;
    args: string[];
    env?: string[];
    cwd?: string;
    capabilities?: Record<string, string[]>;
    noNewPrivileges?: boolean;
  };
  root: { path: string; readonly: boolean };
  mounts: Array<{ destination: string; type: string; source: string; options: string[] }>;
  linux?: { namespaces?: Array<{ type: string }> };
}

const bind = (path: string, mode: 'ro' | 'rw') => ({
  destination: path,
  type: 'bind',
  source: path,
  options: ['rbind', mode],
});

/** Least privilege, as the DaemonSet runs it: read-only root, no capabilities, no new privileges, no terminal. */
function harden(spec: RuntimeSpec, options: RuncContainerOptions, replaceEntrypoint: boolean): RuntimeSpec {
  return {
    ...spec,
    process: {
      ...spec.process,
      terminal: false,
      args:
        options.command !== undefined
          ? [...options.command, ...options.args]
          : replaceEntrypoint
            ? [...options.args]
            : [...spec.process.args.slice(0, 2), ...options.args],
      env: [
        ...(spec.process.env ?? []).filter(
          (line) => !Object.hasOwn(options.env ?? {}, line.split('=')[0] ?? ''),
        ),
        ...Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`),
      ],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      capabilities: { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] },
      noNewPrivileges: true,
    },
    root: { ...spec.root, readonly: true },
    ...(options.hostNetwork === true && spec.linux
      ? {
          linux: {
            ...spec.linux,
            namespaces: (spec.linux.namespaces ?? []).filter((ns) => ns.type !== 'network'),
          },
        }
      : {}),
    mounts: [
      ...spec.mounts,
      ...options.readOnly.map((path) => bind(path, 'ro')),
      ...options.writable.map((path) => bind(path, 'rw')),
      ...(options.binds ?? []).map(({ source, destination, readOnly }) => ({
        destination,
        type: 'bind',
        source,
        options: ['rbind', readOnly ? 'ro' : 'rw'],
      })),
    ],
  };
}

/** Unpacks `image` into a runc bundle and hardens its config.json. */
async function unpackBundle(options: RuncContainerOptions, replaceEntrypoint: boolean): Promise<void> {
  await run('umoci', ['unpack', '--image', options.image, options.bundle]);
  const configFile = join(options.bundle, 'config.json');
  const spec = JSON.parse(readFileSync(configFile, 'utf8')) as RuntimeSpec;
  writeFileSync(configFile, JSON.stringify(harden(spec, options, replaceEntrypoint), null, 2));
}

/**
 * Runs `options.args` as the whole command line (the entrypoint replaced) in a hardened container from
 * `image`, in the foreground, and resolves to its exit code and output; the container is deleted after.
 */
export async function runInContainer(
  options: RuncContainerOptions,
): Promise<{ code: number; output: string }> {
  await unpackBundle(options, true);
  try {
    const result = await run('runc', ['run', '--bundle', options.bundle, options.id]).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: typeof error.code === 'number' ? error.code : -1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    return result;
  } finally {
    await run('runc', ['delete', '--force', options.id]).catch(() => undefined);
  }
}

/** Unpacks `image` into a runc bundle, hardens its config.json, and starts it detached. */
export async function createRuncContainer(options: RuncContainerOptions): Promise<RuncContainer> {
  await unpackBundle(options, false);
  const logFile = join(options.bundle, 'container.log');
  const fd = openSync(logFile, 'w');
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await run('runc', ['delete', '--force', options.id]).catch(() => undefined);
  };
  try {
    const verb = options.beforeStart === undefined ? ['run', '--detach'] : ['create'];
    const runc = spawn('runc', [...verb, '--bundle', options.bundle, options.id], {
      stdio: ['ignore', fd, fd],
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      runc.once('error', reject);
      runc.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`runc ${verb[0]} exited ${code}: ${readFileSync(logFile, 'utf8')}`);
    const { stdout } = await run('runc', ['state', options.id]);
    const pid = (JSON.parse(stdout) as { pid: number }).pid;
    if (options.beforeStart !== undefined) {
      await options.beforeStart(pid);
      await run('runc', ['start', options.id]);
    }
    const status = `/proc/${pid}/status`;
    return {
      pid,
      log: () => readFileSync(logFile, 'utf8'),
      memoryKiB: () => {
        const text = existsSync(status) ? readFileSync(status, 'utf8') : '';
        const rss = /^VmRSS:\s+(\d+) kB$/m.exec(text)?.[1];
        const anon = /^RssAnon:\s+(\d+) kB$/m.exec(text)?.[1];
        return rss === undefined || anon === undefined ? undefined : { rss: Number(rss), anon: Number(anon) };
      },
      exited: async (timeoutMs) => {
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          const { stdout: state } = await run('runc', ['state', options.id]).catch(() => ({ stdout: '{}' }));
          if ((JSON.parse(state) as { status?: string }).status !== 'running') return true;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return false;
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  } finally {
    closeSync(fd);
  }
}
