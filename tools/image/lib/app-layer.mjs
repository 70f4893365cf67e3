// The application layer of one plugin image: /app/main.js (app-main.cjs, which runs the bundle), /app/bundle.js
// (the plugin's esbuild bundle) and /app/bundle.cache (its V8 code cache, code-cache.mjs), the minimal files
// of the native addons it loads, under /app/node_modules, and the shared libraries those addons link; with
// the SBOM components they come from (the plugin's package, the packages bundled into bundle.js, the addons).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { bundledPackages } from './bundle-inputs.mjs';
import { bundleBody, bundleCodeCache } from './code-cache.mjs';
import { debianLibraries } from './debian-libs.mjs';
import { npmTarball } from './fetch-verified.mjs';
import { platforms } from './platforms.mjs';
import { run } from './run-tool.mjs';
import { npmComponent, workspaceComponent } from './sbom.mjs';

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

/** The first line of /app/main.js: the image's Node runs it when a link to it is executed. */
const SHEBANG = Buffer.from('#!/nodejs/bin/node\n');

/** /app/main.js: app-main.cjs under {@link SHEBANG}. */
const APP_MAIN = Buffer.concat([SHEBANG, readFileSync(join(import.meta.dirname, 'app-main.cjs'))]);

/** `name`'s entry in package-lock.json (version, integrity, license): the project's own pin of that addon. */
function lockedPackage(packageLock, name) {
  const entry = packageLock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity) throw new Error(`package-lock.json pins no version of ${name}`);
  return entry;
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
 * The bundle's SBOM components: the plugin's own package (an application, origin of /app/main.js) and every
 * npm and workspace package esbuild put into it, each found at /app/bundle.js. Returns the plugin's component
 * and the bundled ones.
 */
function bundleComponents({ root, packageLock, source, bundle, projectDir }) {
  const { npm, workspace } = bundledPackages({
    root,
    bundlePath: bundle,
    metaPath: join(dirname(bundle), 'meta.json'),
    packageLock,
    entry: `${projectDir}/src/main.ts`,
  });
  const app = workspaceComponent(
    JSON.parse(readFileSync(join(root, projectDir, 'package.json'), 'utf8')),
    projectDir,
    source,
    'application',
  );
  const occurrence = { evidence: { occurrences: [{ location: '/app/bundle.js' }] } };
  const bundled = [
    ...[...npm.values()].map(({ name, entry }) => ({ ...npmComponent(name, entry), ...occurrence })),
    ...[...workspace]
      .filter(([dir]) => dir !== projectDir)
      .map(([dir, manifest]) => ({ ...workspaceComponent(manifest, dir, source), ...occurrence })),
  ];
  return { app, bundled };
}

/**
 * The app layer's entries for `plugin` on `arch` (each with its SBOM `origin`) and the SBOM components they
 * come from: `app` (the plugin's package), `bundled` (inside bundle.js), `addons` (copied as files); and
 * whether it holds the bundle's code cache (`codeCache`: made by the Node of `runtimeRoot`, the runtime
 * layer materialized, unless this host has no emulator for `arch`).
 * @returns {Promise<{ entries: import('./tar-writer.mjs').TarEntry[], app: object, bundled: object[], addons: object[], codeCache: boolean }>}
 */
export async function appLayer({
  root,
  cacheDir,
  debs,
  packageLock,
  source,
  plugin,
  projectDir,
  arch,
  bundle,
  runtimeRoot,
}) {
  const { npmArch, triplet } = platforms[arch];
  const expand = (text) => text.replaceAll('{npmArch}', npmArch).replaceAll('{triplet}', triplet);
  const { app, bundled } = bundleComponents({ root, packageLock, source, bundle, projectDir });
  // The bundle's own `#!/usr/bin/env node` line (for npm's bin) goes: app-main.cjs runs it, not the kernel.
  const body = bundleBody(readFileSync(bundle));
  const cache = await bundleCodeCache({ root: runtimeRoot, arch, body });
  const entries = [
    // An executable script the kernel runs itself (no shell in the image): the anchors' names link to it.
    { path: 'app/main.js', type: 'file', data: APP_MAIN, mode: 0o755, origin: app['bom-ref'] },
    { path: 'app/bundle.js', type: 'file', data: body, mode: 0o644, origin: app['bom-ref'] },
    ...(cache
      ? [{ path: 'app/bundle.cache', type: 'file', data: cache, mode: 0o644, origin: app['bom-ref'] }]
      : []),
    ...plugin.links.map((path) => ({ path, type: 'symlink', target: '/app/main.js' })),
  ];
  const addons = [];
  for (const addon of plugin.addons) {
    const name = expand(addon.name);
    const component = npmComponent(name, lockedPackage(packageLock, name));
    addons.push(component);
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
        origin: component['bom-ref'],
      });
    }
  }
  for (const library of plugin.libraries) {
    entries.push(...(await debianLibraries(debs, arch, [library.package], library.sonames)));
  }
  return { entries, app, bundled, addons, codeCache: cache !== undefined };
}
