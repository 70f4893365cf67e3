// The runtime layer, the same for every plugin of one architecture: the pinned Node binary (stripped of
// symbols and debug info where a strip tool for that architecture exists) and the shared libraries it needs.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { debianLibraries } from './debian-libs.mjs';
import { npmTarball } from './fetch-verified.mjs';
import { platforms } from './platforms.mjs';
import { hasTool, run } from './run-tool.mjs';
import { nodeComponent, sha256 } from './sbom.mjs';

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

/** The files taken from the Node tarball: the binary, its license, and package.json (for the SBOM's license). */
const nodePackageFiles = ['package/bin/node', 'package/LICENSE', 'package/package.json'];

/** Extracts {@link nodePackageFiles} from the locked node-linux-<arch> tarball (once). */
async function nodeFiles(cacheDir, lock, arch) {
  const { name, integrity } = lock.node.packages[arch];
  const tgz = await npmTarball(cacheDir, name, lock.node.version, integrity);
  const dir = join(cacheDir, 'unpacked', `${name}-${lock.node.version}`);
  // A cache from before package.json was extracted is refreshed.
  if (!nodePackageFiles.every((file) => existsSync(join(dir, file)))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await run('tar', ['-xzf', tgz, '-C', tmp, ...nodePackageFiles]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  const packageJson = JSON.parse(readFileSync(join(dir, 'package/package.json'), 'utf8'));
  return {
    binary: join(dir, 'package/bin/node'),
    license: join(dir, 'package/LICENSE'),
    dir,
    component: nodeComponent(lock, arch, packageJson.license),
  };
}

/** The locked Node binary for `arch`, fetched, verified and unpacked into `cacheDir` on first use (unstripped). */
export async function lockedNodeBinary(cacheDir, lock, arch) {
  return (await nodeFiles(cacheDir, lock, arch)).binary;
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
 * The runtime layer's entries for `arch` (each file with its SBOM `origin`, and Node's binary with its
 * `pedigree` when stripped), a note on how Node was stripped, and Node's SBOM component.
 * @returns {Promise<{ entries: import('./tar-writer.mjs').TarEntry[], strip: string | undefined, node: object }>}
 */
export async function runtimeLayer(cacheDir, lock, debs, arch) {
  const { triplet, loader } = platforms[arch];
  const node = await nodeFiles(cacheDir, lock, arch);
  const origin = node.component['bom-ref'];
  const { file, tool } = await stripped(node.binary, node.dir, arch);
  const pedigree = tool && {
    ancestors: [
      {
        type: 'file',
        name: 'package/bin/node',
        hashes: [{ alg: 'SHA-256', content: sha256(readFileSync(node.binary)) }],
      },
    ],
    notes: `package/bin/node of the ${node.component.name} ${node.component.version} tarball, stripped with ${tool} --strip-all`,
  };
  const libs = await debianLibraries(debs, arch, runtimePackages, [...nodeSonames, loader.soname]);
  const entries = [
    { path: 'nodejs/bin/node', type: 'file', data: readFileSync(file), mode: 0o755, origin, pedigree },
    { path: 'nodejs/LICENSE', type: 'file', data: readFileSync(node.license), origin },
    ...libs,
    // Relative, as Debian's own loader links: it resolves inside the image wherever the image is unpacked, so
    // that qemu-user (`-L <rootfs>`) finds the arm64 loader of the image, not the host's.
    {
      path: loader.link,
      type: 'symlink',
      target: relative(dirname(loader.link), `lib/${triplet}/${loader.soname}`),
    },
    { path: 'tmp', type: 'dir', mode: 0o1777 },
  ];
  return { entries, strip: tool, node: node.component };
}
