import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The esbuild flags that only shape the output file, not which inputs go into it. */
const outputOnly = /^--(outfile|banner|log-level|metafile)\b/;

/**
 * Rebuilds `projectDir`'s bundle with the esbuild command of its project.json `build` target (output to a
 * temporary directory, plus `--metafile`) and returns esbuild's own list of the bundle's input files
 * (workspace-relative paths): an account of the bundle independent of the image builder's.
 */
export async function esbuildInputs(repo: string, projectDir: string): Promise<string[]> {
  const project = JSON.parse(readFileSync(join(repo, projectDir, 'project.json'), 'utf8')) as {
    targets: { build: { options: { command: string } } };
  };
  const [esbuild, ...flags] =
    project.targets.build.options.command.split(' && ')[0]?.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  if (esbuild !== 'esbuild') throw new Error(`${projectDir}: the build target does not start with esbuild`);
  const out = mkdtempSync(join(tmpdir(), 'kdp-meta-'));
  try {
    await run(
      join(repo, 'node_modules/.bin/esbuild'),
      [
        ...flags.filter((flag) => !outputOnly.test(flag)),
        `--outfile=${join(out, 'main.js')}`,
        `--metafile=${join(out, 'meta.json')}`,
        '--log-level=error',
      ],
      { cwd: repo },
    );
    const meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    return Object.keys(meta.inputs).sort();
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The packages `inputs` belong to, as `name@version`: npm packages by their package-lock.json entry (the
 * innermost node_modules directory), workspace packages by their package.json.
 */
export function packagesOf(
  repo: string,
  inputs: readonly string[],
  packageLock: Readonly<Record<string, { version?: string }>>,
): string[] {
  const found = new Set<string>();
  for (const input of inputs) {
    const parts = input.split('/');
    const at = parts.lastIndexOf('node_modules');
    if (at >= 0) {
      const length = parts[at + 1]?.startsWith('@') ? 2 : 1;
      const name = parts.slice(at + 1, at + 1 + length).join('/');
      found.add(`${name}@${packageLock[parts.slice(0, at + 1 + length).join('/')]?.version}`);
    } else {
      const manifest = JSON.parse(
        readFileSync(join(repo, parts[0] ?? '', parts[1] ?? '', 'package.json'), 'utf8'),
      ) as {
        name: string;
        version: string;
      };
      found.add(`${manifest.name}@${manifest.version}`);
    }
  }
  return [...found].sort();
}
