// What is inside a plugin's esbuild bundle: the build writes esbuild's metafile (`--metafile`) beside the
// (minified) bundle, whose output entry lists every input file with the bytes it put into the bundle, as paths
// relative to the working directory (the workspace root). Those paths name the npm packages (node_modules/…,
// versioned by package-lock.json) and the workspace packages (packages/…) in /app/main.js. Every such path
// must belong to a locked npm package or a workspace package, or the build stops.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The input files esbuild put code of into the bundle at `bundlePath` (workspace-relative under `root`),
 * by the metafile `metaPath`: sorted workspace-relative paths. A metafile of another output is an error.
 */
export function bundleInputs({ root, bundlePath, metaPath }) {
  if (!existsSync(metaPath)) throw new Error(`${metaPath} is missing: the build writes it with --metafile`);
  const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
  const output = meta.outputs?.[relative(root, bundlePath)];
  if (output === undefined) throw new Error(`${metaPath}: no output ${relative(root, bundlePath)}`);
  return Object.entries(output.inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([path]) => path)
    .sort();
}

/** The package-lock.json key (`node_modules/a/node_modules/@b/c`) and name of the npm package holding `path`. */
function npmPackageOf(path) {
  const parts = path.split('/');
  const at = parts.lastIndexOf('node_modules');
  const length = parts[at + 1]?.startsWith('@') ? 2 : 1;
  if (at < 0 || parts.length <= at + length) return undefined;
  return {
    key: parts.slice(0, at + 1 + length).join('/'),
    name: parts.slice(at + 1, at + 1 + length).join('/'),
  };
}

/**
 * The packages inside the bundle at `bundlePath`, by its metafile `metaPath`: `npm` (name and package-lock.json
 * entry, by lock key) and `workspace` (workspace-relative directory and package.json). `entry` is the
 * workspace-relative entry point the bundle must contain (else the metafile is of another build).
 */
export function bundledPackages({ root, bundlePath, metaPath, packageLock, entry }) {
  const inputs = bundleInputs({ root, bundlePath, metaPath });
  if (!inputs.includes(entry)) throw new Error(`${metaPath}: ${bundlePath} has no code of ${entry}`);
  const npm = new Map();
  const workspace = new Map();
  for (const input of inputs) {
    if (input.startsWith('node_modules/')) {
      const pkg = npmPackageOf(input);
      const locked = pkg && packageLock.packages?.[pkg.key];
      if (!locked?.version) throw new Error(`${bundlePath}: ${input} is in no package of package-lock.json`);
      npm.set(pkg.key, { name: pkg.name, entry: locked });
    } else {
      const dir = input.split('/').slice(0, 2).join('/');
      const manifest = join(root, dir, 'package.json');
      if (!existsSync(manifest)) throw new Error(`${bundlePath}: ${input} is in no workspace package`);
      if (!workspace.has(dir)) workspace.set(dir, JSON.parse(readFileSync(manifest, 'utf8')));
    }
  }
  return { npm, workspace };
}
