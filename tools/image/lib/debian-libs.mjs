// Shared libraries taken from pinned Debian packages: each package is fetched (sha256-checked), unpacked
// with dpkg-deb into the cache, and the wanted sonames are read from it (symlinks resolved).
import { existsSync, lstatSync, readFileSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { platforms } from './platforms.mjs';
import { run } from './run-tool.mjs';
import { debPurl } from './sbom.mjs';

/** Unpacks one locked Debian package into the cache (once) and returns the unpacked tree's root. */
async function unpacked(debs, arch, name) {
  const deb = await debs.file(arch, name);
  const root = join(debs.cacheDir, 'unpacked', basename(deb, '.deb'));
  if (!existsSync(root)) {
    const tmp = `${root}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    await run('dpkg-deb', ['-x', deb, tmp]);
    renameSync(tmp, root);
  }
  return root;
}

/** Reads `path` inside `root`, following symlinks without ever leaving `root`. */
function readInside(root, path) {
  let current = join(root, path);
  for (let hops = 0; hops < 16; hops += 1) {
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (!stat) return undefined;
    if (!stat.isSymbolicLink()) return readFileSync(current);
    const target = readlinkSync(current);
    const next = target.startsWith('/') ? join(root, target) : resolve(dirname(current), target);
    if (!next.startsWith(`${root}/`)) return undefined;
    current = next;
  }
  return undefined;
}

/** The SBOM bom-ref of Debian package `name` of `arch` as this build used it (fetched before). */
function debOrigin(debs, arch, name) {
  const [used] = debs.used(arch, [name]);
  if (!used) throw new Error(`${name}:${arch} was not fetched`);
  return debPurl(used.name, used.version, arch, debs.suite);
}

/**
 * Tar entries for the shared libraries `sonames` of `arch`, at /lib/<triplet>/<soname>, taken from the
 * Debian packages `packageNames` (pinned, see locked-debs.mjs), plus each package's copyright file; each
 * entry's SBOM `origin` is the package it was read from.
 * @returns {Promise<import('./tar-writer.mjs').TarEntry[]>}
 */
export async function debianLibraries(debs, arch, packageNames, sonames) {
  const { triplet } = platforms[arch];
  const roots = [];
  const entries = [];
  for (const name of packageNames) {
    const root = await unpacked(debs, arch, name);
    const origin = debOrigin(debs, arch, name);
    roots.push({ root, origin });
    const copyright = readInside(root, `usr/share/doc/${name}/copyright`);
    if (copyright) {
      entries.push({ path: `usr/share/doc/${name}/copyright`, type: 'file', data: copyright, origin });
    }
  }
  for (const soname of sonames) {
    const found = roots
      .flatMap(({ root, origin }) =>
        [`lib/${triplet}/${soname}`, `usr/lib/${triplet}/${soname}`].map((p) => ({
          data: readInside(root, p),
          origin,
        })),
      )
      .find((candidate) => candidate.data !== undefined);
    if (!found) throw new Error(`${soname} (${arch}) is in none of ${packageNames.join(', ')}`);
    entries.push({
      path: `lib/${triplet}/${soname}`,
      type: 'file',
      data: found.data,
      mode: 0o755,
      origin: found.origin,
    });
  }
  return entries;
}
