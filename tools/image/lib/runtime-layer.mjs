// The runtime layer, the same for every plugin of one architecture: the pinned Node binary (stripped of
// symbols and debug info where a strip tool for that architecture exists) and the shared libraries it needs.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { debianLibraries } from './debian-libs.mjs';
import { npmTarball } from './fetch-verified.mjs';
import { platforms } from './platforms.mjs';
import { hasTool, run } from './run-tool.mjs';

/** The libraries `node` is linked against (readelf -d: NEEDED), besides the loader. */
const nodeSonames = [
  'libc.so.6',
  'libm.so.6',
  'libdl.so.2',
  'libpthread.so.0',
  'libstdc++.so.6',
  'libgcc_s.so.1',
];

/** The Debian packages the runtime layer's libraries come from. */
export const runtimePackages = ['libc6', 'libgcc-s1', 'libstdc++6'];

/** Extracts `package/bin/node` and `package/LICENSE` from the locked node-linux-<arch> tarball (once). */
async function nodeFiles(cacheDir, lock, arch) {
  const { name, integrity } = lock.node.packages[arch];
  const tgz = await npmTarball(cacheDir, name, lock.node.version, integrity);
  const dir = join(cacheDir, 'unpacked', `${name}-${lock.node.version}`);
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await run('tar', ['-xzf', tgz, '-C', tmp, 'package/bin/node', 'package/LICENSE']);
    renameSync(tmp, dir);
  }
  return { binary: join(dir, 'package/bin/node'), license: join(dir, 'package/LICENSE'), dir };
}

/**
 * Strips `binary` with the first strip tool for `arch` found on PATH; returns the stripped file (cached)
 * and the tool used, or the original file and undefined when no tool is available.
 */
async function stripped(binary, dir, arch) {
  for (const tool of platforms[arch].stripTools) {
    const out = join(dir, `node.stripped-${tool}`);
    if (existsSync(out)) return { file: out, tool };
    if (!(await hasTool(tool))) continue;
    await run(tool, ['--strip-all', '-o', `${out}.tmp`, binary]);
    renameSync(`${out}.tmp`, out);
    return { file: out, tool };
  }
  return { file: binary, tool: undefined };
}

/**
 * The runtime layer's entries for `arch` and a note on how Node was stripped.
 * @returns {Promise<{ entries: import('./tar-writer.mjs').TarEntry[], strip: string | undefined }>}
 */
export async function runtimeLayer(cacheDir, lock, debs, arch) {
  const { triplet, loader } = platforms[arch];
  const node = await nodeFiles(cacheDir, lock, arch);
  const { file, tool } = await stripped(node.binary, node.dir, arch);
  const libs = await debianLibraries(debs, arch, runtimePackages, [...nodeSonames, loader.soname]);
  const entries = [
    { path: 'nodejs/bin/node', type: 'file', data: readFileSync(file), mode: 0o755 },
    { path: 'nodejs/LICENSE', type: 'file', data: readFileSync(node.license) },
    ...libs,
    { path: loader.link, type: 'symlink', target: `/lib/${triplet}/${loader.soname}` },
    { path: 'tmp', type: 'dir', mode: 0o1777 },
  ];
  return { entries, strip: tool };
}
