/** The parts of a packed package.json that say which files must be in the tarball. */
export interface PackedManifest {
  readonly main?: string;
  readonly types?: string;
  readonly bin?: string | Readonly<Record<string, string>>;
  readonly exports?: Readonly<Record<string, unknown>>;
}

/** What {@link checkPackageFiles} found wrong with a tarball's file list. */
export interface PackageFilesReport {
  /** Files that must not be published: sources, tests, fixtures, configs, benchmarks, anything unlisted. */
  readonly unexpected: string[];
  /** Files the package needs (its entry points, README, LICENSE) that are not in the tarball. */
  readonly missing: string[];
}

const always = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts'];
const builtCode = /^dist\/(?!bench\/)[\w./-]+(?<!\.spec|\.fixture|\.test)(\.js|\.d\.ts)$/;

const relative = (path: string): string => path.replace(/^\.\//, '');

/** Every file a manifest points at: main, types, bin targets, and the export map's targets except `@kdp/source`. */
export function manifestTargets(manifest: PackedManifest): string[] {
  const targets = [manifest.main, manifest.types];
  const bin = manifest.bin;
  targets.push(...(typeof bin === 'string' ? [bin] : Object.values(bin ?? {})));
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value);
    else if (value !== null && typeof value === 'object') {
      for (const [condition, target] of Object.entries(value)) if (condition !== '@kdp/source') walk(target);
    }
  };
  walk(manifest.exports);
  return [...new Set(targets.filter((t): t is string => t !== undefined).map(relative))];
}

/**
 * Checks a tarball's file list (paths relative to the package root) against the publishing rule: built
 * JavaScript and declarations under dist/ (no benchmarks, specs or fixtures), the bin targets, README.md,
 * LICENSE and package.json, and nothing else; every entry point of the manifest must be present.
 */
export function checkPackageFiles(files: readonly string[], manifest: PackedManifest): PackageFilesReport {
  const targets = manifestTargets(manifest);
  const bins = new Set(targets.filter((t) => !t.startsWith('dist/')));
  const allowed = (file: string): boolean => always.includes(file) || builtCode.test(file) || bins.has(file);
  const present = new Set(files);
  return {
    unexpected: files.filter((file) => !allowed(file)),
    missing: [...new Set([...always, ...targets])].filter((file) => !present.has(file)),
  };
}
