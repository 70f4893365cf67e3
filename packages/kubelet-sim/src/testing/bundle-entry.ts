import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

/** A bundled entry point, ready to run as a process. */
export interface EntryBundle {
  /** The bundle's path. */
  readonly path: string;
  /** Deletes the private directory it was built in (nothing when `outfile` was given). */
  remove(): void;
}

/** Options of {@link bundleEntry}. */
export interface BundleEntryOptions {
  /** Where to write the bundle; default `main.js` in a fresh private temp dir (a parallel build cannot swap it). */
  readonly outfile?: string;
  /** Packages left out of the bundle, e.g. native addons; then `outfile` must sit where `require` finds them. */
  readonly external?: readonly string[];
  /** Minified with names kept, as the binaries' bundles are (their `build` targets); default false. */
  readonly minify?: boolean;
  /** Packages replaced by files, as the binaries' `--alias` (e.g. `@grpc/proto-loader` → core's stand-in). */
  readonly alias?: Readonly<Record<string, string>>;
}

/**
 * Bundles a TypeScript entry point exactly as the packages' `build` targets do (esbuild, node20, CommonJS, the
 * `@kdp/source` condition, a node shebang), so tests and benchmarks can run a binary as a real process.
 */
export function bundleEntry(entry: string, options: BundleEntryOptions = {}): EntryBundle {
  const privateDir = options.outfile === undefined ? mkdtempSync(join(tmpdir(), 'kdp-bin-')) : undefined;
  const path = options.outfile ?? join(privateDir ?? dirname(entry), 'main.js');
  // Loaded here, not at import: bundles of benchmarks that import this entry leave esbuild out.
  const { buildSync } = createRequire(__filename)('esbuild') as typeof import('esbuild');
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['@kdp/source'],
    banner: { js: '#!/usr/bin/env node' },
    external: [...(options.external ?? [])],
    ...(options.minify === true ? { minify: true, keepNames: true } : {}),
    ...(options.alias !== undefined ? { alias: { ...options.alias } } : {}),
    outfile: path,
    logLevel: 'warning',
  });
  return {
    path,
    remove: () => {
      if (privateDir !== undefined) rmSync(privateDir, { recursive: true, force: true });
    },
  };
}
