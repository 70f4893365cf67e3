// The V8 code cache of an image's bundle (/app/bundle.cache, which app-main.cjs hands to V8), made by the
// image's own Node for the image's architecture, with the image's environment: natively through the image's
// own ELF loader and libraries when the architecture is the host's, else under qemu-user-static. Both run on a
// root holding the runtime layer's files, so the host's libraries play no part.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { nodeRuntimeEnv } from './node-runtime.mjs';
import { platforms } from './platforms.mjs';
import { hasTool, run } from './run-tool.mjs';

const producer = join(import.meta.dirname, 'code-cache-producer.cjs');

/** The bundle as /app/bundle.js holds it: without its `#!/usr/bin/env node` line (app-main.cjs runs it). */
export function bundleBody(script) {
  return script.subarray(0, 2).toString() === '#!' ? script.subarray(script.indexOf(10) + 1) : script;
}

/** Writes tar entries (the runtime layer's) under `dir`, as the image would hold them. */
export function materialize(entries, dir) {
  for (const entry of entries) {
    const path = join(dir, entry.path);
    if (entry.type === 'dir') mkdirSync(path, { recursive: true });
    else {
      mkdirSync(dirname(path), { recursive: true });
      if (entry.type === 'symlink') symlinkSync(entry.target, path);
      else writeFileSync(path, entry.data, { mode: entry.mode ?? 0o644 });
    }
  }
}

/**
 * How `arch`'s Node in `root` runs on this host: its own loader with its own libraries on the host's
 * architecture, qemu-user-static (`-L root`) on another; undefined when that emulator is not installed.
 * @returns {Promise<[string, string[]] | undefined>}
 */
async function nodeCommand(root, arch) {
  const { npmArch, triplet, loader, qemu } = platforms[arch];
  const node = join(root, 'nodejs/bin/node');
  if (npmArch === process.arch) {
    const libs = join(root, 'lib', triplet);
    return [join(libs, loader.soname), ['--library-path', libs, node]];
  }
  return (await hasTool(qemu)) ? [qemu, ['-L', root, node]] : undefined;
}

/**
 * The code cache of `body` (the bundle as /app/bundle.js holds it) for `arch`, made by the Node of `root` (the
 * runtime layer, materialized); undefined when this host cannot run that architecture's Node (no emulator).
 * The same inputs give the same bytes.
 * @returns {Promise<Buffer | undefined>}
 */
export async function bundleCodeCache({ root, arch, body }) {
  const command = await nodeCommand(root, arch);
  return command === undefined ? undefined : produceCodeCache(command, body);
}

/**
 * The code cache of `body` made by the Node that `command` (file and leading arguments) starts, with the
 * images' environment (node-runtime.json): the cache V8 accepts from that Node started that way, compressed with
 * brotli at its highest quality, as /app/bundle.cache holds it (app-main.cjs decompresses it). Brotli takes the
 * cache of kdp-device-plugins to 271 kB where the layer's gzip would leave 346 kB (the images' 45 MB goal);
 * decompressing it costs 10–24 ms of a start on the build machine.
 * @returns {Promise<Buffer>}
 */
export async function produceCodeCache(command, body) {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-code-cache-'));
  try {
    const bundle = join(dir, 'bundle.js');
    const out = join(dir, 'bundle.cache');
    writeFileSync(bundle, body);
    const env = Object.fromEntries(nodeRuntimeEnv().map((line) => line.split(/=(.*)/s, 2)));
    const [file, prefix] = command;
    await run(file, [...prefix, '--predictable', producer, bundle, out], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      // The bundle's `--version` runs its module initialization and exits; under qemu that takes seconds.
      timeout: 300_000,
    });
    const cache = readFileSync(out);
    return brotliCompressSync(cache, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: cache.length,
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
