import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The image architectures, as OCI names them. */
export type ImageArch = 'amd64' | 'arm64';

/** Options of {@link spawnImageNode}. */
export interface ImageNodeOptions {
  /** An unpacked image's root filesystem (umoci's `rootfs`). */
  readonly rootfs: string;
  readonly arch: ImageArch;
  /** Arguments after `/app/main.js` (the image's entrypoint). */
  readonly args: readonly string[];
  /** Modules (paths inside the rootfs, e.g. `/app/node_modules/usb`) the process requires as it exits. */
  readonly requireAtExit?: readonly string[];
  /** Variables beside `PATH` and `NODE_ENV` (the image's `Env`, say); none by default. */
  readonly env?: Readonly<Record<string, string>>;
}

/** How one run of the image's Node ended. */
export interface ImageNodeResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The process's /proc/self/maps as it exited (the guest's maps under qemu-user); '' if none was written. */
  readonly maps: string;
  /** What /app/main.js left of its code cache (`accepted`, `rejected`, `absent`; `undefined` if nothing). */
  readonly codeCache: string;
}

/** A running image Node process. */
export interface ImageNodeProcess {
  readonly child: ChildProcess;
  /** Its stdout and stderr so far. */
  log(): string;
  /** Resolves when the process has exited, or rejects after `timeoutMs` (killing it). */
  result(timeoutMs: number): Promise<ImageNodeResult>;
}

// Preloaded with -r: requires the requested modules and saves /proc/self/maps when the process exits (also
// after the plugin's own process.exit), so the maps show every library loaded while it ran; and what
// /app/main.js left of its code cache.
const mapsAtExit = `'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
process.on('exit', () => {
  for (const module of JSON.parse(process.env.KDP_REQUIRE_AT_EXIT || '[]')) require(module);
  writeFileSync(process.env.KDP_MAPS_OUT, readFileSync('/proc/self/maps'));
  writeFileSync(process.env.KDP_MAPS_OUT + '.code-cache', String(globalThis[Symbol.for('kdp.codeCache')]));
});
`;

/**
 * The command that runs `rootfs`'s Node binary on this (x86-64) host with the image's own libraries:
 * arm64 under `qemu-aarch64-static -L rootfs` (no binfmt_misc needed; the guest's ELF interpreter
 * /lib/ld-linux-aarch64.so.1 and the libraries it loads resolve inside rootfs first), amd64 through the
 * image's own loader with the image's library directory.
 */
function imageNodeCommand(rootfs: string, arch: ImageArch): [string, string[]] {
  const node = join(rootfs, 'nodejs/bin/node');
  if (arch === 'arm64') return ['qemu-aarch64-static', ['-L', rootfs, node]];
  const libs = join(rootfs, 'lib/x86_64-linux-gnu');
  return [join(libs, 'ld-linux-x86-64.so.2'), ['--library-path', libs, node]];
}

/**
 * Starts the image's Node binary with its bundle (`rootfs/app/main.js`, so that /app/node_modules resolves
 * inside rootfs) and `args`, as the image's entrypoint would, with the image's environment.
 */
export function spawnImageNode(options: ImageNodeOptions): ImageNodeProcess {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-imgnode-'));
  const preload = join(dir, 'maps-at-exit.cjs');
  const mapsFile = join(dir, 'maps');
  writeFileSync(preload, mapsAtExit);
  const [command, prefix] = imageNodeCommand(options.rootfs, options.arch);
  const child = spawn(
    command,
    [...prefix, '-r', preload, join(options.rootfs, 'app/main.js'), ...options.args],
    {
      env: {
        ...options.env,
        PATH: process.env['PATH'],
        NODE_ENV: 'production',
        KDP_MAPS_OUT: mapsFile,
        KDP_REQUIRE_AT_EXIT: JSON.stringify(
          (options.requireAtExit ?? []).map((module) => join(options.rootfs, module)),
        ),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<ImageNodeResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const maps = existsSync(mapsFile) ? readFileSync(mapsFile, 'utf8') : '';
      const cacheFile = `${mapsFile}.code-cache`;
      const codeCache = existsSync(cacheFile) ? readFileSync(cacheFile, 'utf8') : '';
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, signal, stdout, stderr, maps, codeCache });
    });
  });
  return {
    child,
    log: () => stdout + stderr,
    result: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${options.arch} node ${options.args.join(' ')}: no exit within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
    },
  };
}

/** Runs the image's Node with its bundle to completion (see {@link spawnImageNode}), bounded by `timeoutMs`. */
export function runImageNode(options: ImageNodeOptions, timeoutMs: number): Promise<ImageNodeResult> {
  return spawnImageNode(options).result(timeoutMs);
}
