// What is inside a plugin's esbuild bundle: esbuild (not minifying) writes a `// <path>` line, relative to the
// working directory (the workspace root), before the code of every input file it bundles. Those paths name the
// npm packages (node_modules/…, versioned by package-lock.json) and the workspace packages (packages/…) in
// /app/main.js. Every such path must belong to a locked npm package or a workspace package, or the build stops.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The input files esbuild wrote into `bundleText`, as workspace-relative paths, sorted, without duplicates. */
export function bundleInputs(bundleText) {
  const lines = bundleText.match(/^\/\/ (?:node_modules|packages)\/\S+$/gm) ?? [];
  return [...new Set(lines.map((line) => line.slice('// '.length)))].sort();
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
 * The packages inside the bundle at `bundlePath`: `npm` (name and package-lock.json entry, by lock key) and
 * `workspace` (workspace-relative directory and package.json). `entry` is the workspace-relative entry point
 * the bundle must contain (its absence means esbuild wrote no path comments, e.g. a minified bundle).
 */
export function bundledPackages({ root, bundlePath, packageLock, entry }) {
  const inputs = bundleInputs(readFileSync(bundlePath, 'utf8'));
  if (!inputs.includes(entry)) {
    throw new Error(
      `${bundlePath}: no "// ${entry}" line; the SBOM needs esbuild's input path comments (an unminified bundle)`,
    );
  }
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
