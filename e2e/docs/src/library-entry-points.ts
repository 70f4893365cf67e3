import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { workspaceRoot } from './run-process';

/** The libraries published for plugin authors; their entry points get an API reference and a report. */
export const LIBRARIES = ['api', 'base', 'core', 'topology', 'kubelet-sim', 'dra'] as const;

/** One entry point of a library, from its package.json `exports` map. */
export interface LibraryEntryPoint {
  /** Folder name under packages/, e.g. `kubelet-sim`. */
  readonly pkg: string;
  /** Import specifier, e.g. `@kdp/kubelet-sim/testing`. */
  readonly specifier: string;
  /** Source file relative to the package, e.g. `src/testing/index.ts`. */
  readonly source: string;
  /** API report file relative to the package, e.g. `api-report/kubelet-sim-testing.api.md`. */
  readonly report: string;
}

interface Manifest {
  readonly name: string;
  readonly exports?: Record<string, unknown>;
}

/** Every entry point of every library, read from the `@kdp/source` condition of its exports map. */
export function libraryEntryPoints(): LibraryEntryPoint[] {
  return LIBRARIES.flatMap((pkg) => {
    const manifest = JSON.parse(
      readFileSync(join(workspaceRoot, 'packages', pkg, 'package.json'), 'utf8'),
    ) as Manifest;
    return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
      const source = (target as Record<string, unknown> | null)?.['@kdp/source'];
      if (typeof source !== 'string') return [];
      const sub = subpath.replace(/^\.\/?/, '');
      return [
        {
          pkg,
          specifier: sub === '' ? manifest.name : `${manifest.name}/${sub}`,
          source: posix.normalize(source),
          report: `api-report/${sub === '' ? pkg : `${pkg}-${sub.replaceAll('/', '-')}`}.api.md`,
        },
      ];
    });
  });
}
