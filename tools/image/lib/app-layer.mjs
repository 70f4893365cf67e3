// The application layer of one plugin image: /app/main.js (the plugin's esbuild bundle), the minimal files
// of the native addons it loads, under /app/node_modules, and the shared libraries those addons link.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { debianLibraries } from './debian-libs.mjs';
import { npmTarball } from './fetch-verified.mjs';
import { platforms } from './platforms.mjs';
import { run } from './run-tool.mjs';

function listFiles(dir) {
  const out = [];
  const walk = (current) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out;
}

/** The version and integrity of `name` in package-lock.json: the project's own pin of that addon. */
function lockedPackage(packageLock, name) {
  const entry = packageLock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity) throw new Error(`package-lock.json pins no version of ${name}`);
  return { version: entry.version, integrity: entry.integrity };
}

/** Unpacks `name`'s locked npm tarball into the cache (once); returns the package directory. */
async function unpackedNpm(cacheDir, packageLock, name) {
  const { version, integrity } = lockedPackage(packageLock, name);
  const tgz = await npmTarball(cacheDir, name, version, integrity);
  const dir = join(cacheDir, 'unpacked', `${name.replace('/', '+')}-${version}`);
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await run('tar', ['-xzf', tgz, '-C', tmp, '--no-same-owner']);
    renameSync(tmp, dir);
  }
  return join(dir, 'package');
}

/**
 * The app layer's entries for `plugin` on `arch`.
 * @returns {Promise<import('./tar-writer.mjs').TarEntry[]>}
 */
export async function appLayer({ cacheDir, debs, packageLock, plugin, arch, bundle }) {
  const { npmArch, triplet } = platforms[arch];
  const expand = (text) => text.replaceAll('{npmArch}', npmArch).replaceAll('{triplet}', triplet);
  const entries = [{ path: 'app/main.js', type: 'file', data: readFileSync(bundle) }];
  for (const addon of plugin.addons) {
    const name = expand(addon.name);
    const dir = await unpackedNpm(cacheDir, packageLock, name);
    const patterns = addon.files.map((pattern) => new RegExp(expand(pattern)));
    const files = listFiles(dir).filter((file) => patterns.some((pattern) => pattern.test(file)));
    const missing = patterns.filter((pattern) => !files.some((file) => pattern.test(file)));
    if (missing.length > 0) throw new Error(`${name}: no file matches ${missing.join(', ')}`);
    for (const file of files) {
      const mode = file.endsWith('.node') ? 0o755 : 0o644;
      entries.push({
        path: `app/node_modules/${name}/${file}`,
        type: 'file',
        data: readFileSync(join(dir, file)),
        mode,
      });
    }
  }
  for (const library of plugin.libraries) {
    entries.push(...(await debianLibraries(debs, arch, [library.package], library.sonames)));
  }
  return entries;
}
