import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNodeScript, runProcess, workspaceRoot } from './run-process';

// nx.json `release`: one fixed version group of every published package, versioned from conventional commits,
// with a workspace CHANGELOG.md. These run `nx release` as a dry run (nothing is written, committed, tagged or
// published) and check that the whole group moves together.

/** The nx CLI script, from nx's own package.json `bin` (its location has moved between versions). */
const NX = join(
  'node_modules/nx',
  (
    JSON.parse(readFileSync(join(workspaceRoot, 'node_modules/nx/package.json'), 'utf8')) as {
      bin: { nx: string };
    }
  ).bin.nx,
);
const LONG = 300_000;
const NX_ENV = { NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', NX_SKIP_NX_CACHE: 'true' };

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
}

/** Every package under packages/: the published ones form the release group, private ones stay out. */
function workspacePackages(root: string): Manifest[] {
  return readdirSync(join(root, 'packages'))
    .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
    .map((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest);
}

/** Names to which the dry run says it would write `version`. */
function bumped(output: string, version: string): string[] {
  const pattern = new RegExp(
    `^(\\S+) .*New version ${version.replaceAll('.', '\\.')} written to manifest`,
    'gm',
  );
  return [...output.matchAll(pattern)].map((match) => match[1] ?? '').sort();
}

/** The text of every packages/<x>/package.json, to show that a dry run wrote nothing. */
function manifestTexts(): string[] {
  return readdirSync(join(workspaceRoot, 'packages'))
    .map((dir) => join(workspaceRoot, 'packages', dir, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8'));
}

const published = workspacePackages(workspaceRoot)
  .filter((manifest) => manifest.private !== true)
  .map((manifest) => manifest.name)
  .sort();

describe('nx release (dry run)', () => {
  it(
    'would version every published package together and preview the CHANGELOG.md entry, without publishing',
    async () => {
      // Our history before this configuration is not in conventional-commit form, so the version is explicit.
      const manifestsBefore = manifestTexts();
      const changelogBefore = readFileSync(join(workspaceRoot, 'CHANGELOG.md'), 'utf8');

      const { code, output } = await runNodeScript(NX, ['release', '9.8.7', '--dry-run', '--skip-publish'], {
        env: NX_ENV,
      });
      expect({ code, tail: code === 0 ? '' : output.slice(-4000) }).toEqual({ code: 0, tail: '' });
      expect(bumped(output, '9.8.7')).toEqual(published);
      expect(output).toContain('Previewing an entry in CHANGELOG.md for v9.8.7');
      expect(output).toContain('+ ## 9.8.7');
      expect(output).toContain('Skipped publishing packages');

      // A dry run leaves every file as it was.
      const manifestsAfter = manifestTexts();
      expect(manifestsAfter).toEqual(manifestsBefore);
      expect(readFileSync(join(workspaceRoot, 'CHANGELOG.md'), 'utf8')).toBe(changelogBefore);
    },
    LONG,
  );

  describe('on a repository with conventional commits since the v0.1.0 tag', () => {
    let repo: string;
    const git = (...args: string[]) =>
      runProcess('git', ['-c', 'user.name=kdp test', '-c', 'user.email=test@example.com', ...args], {
        cwd: repo,
      });

    beforeAll(async () => {
      // The workspace's release-relevant files in a fresh repository, so the test depends neither on this
      // clone's history nor on its depth.
      repo = mkdtempSync(join(tmpdir(), 'kdp-rel-'));
      for (const file of ['nx.json', 'package.json', 'package-lock.json', 'CHANGELOG.md']) {
        cpSync(join(workspaceRoot, file), join(repo, file));
      }
      for (const dir of readdirSync(join(workspaceRoot, 'packages'))) {
        for (const file of ['package.json', 'project.json']) {
          const from = join(workspaceRoot, 'packages', dir, file);
          if (!existsSync(from)) continue;
          mkdirSync(join(repo, 'packages', dir), { recursive: true });
          cpSync(from, join(repo, 'packages', dir, file));
        }
      }
      symlinkSync(join(workspaceRoot, 'node_modules'), join(repo, 'node_modules'), 'dir');
      writeFileSync(join(repo, '.gitignore'), 'node_modules\n.nx\n');
      const gitOrThrow = async (...args: string[]) => {
        const result = await git(...args);
        if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.output}`);
      };
      await gitOrThrow('init', '-q', '-b', 'main');
      await gitOrThrow('add', '-A');
      await gitOrThrow('commit', '-q', '-m', 'chore: kdp 0.1.0');
      await gitOrThrow('tag', 'v0.1.0');
      // Nx counts a commit for the projects whose files it touches.
      const commits = [
        { file: 'packages/api/fix.txt', message: 'fix(api): a fix' },
        { file: 'packages/core/hook.txt', message: 'feat(core)!: a breaking change to a hook' },
      ];
      for (const { file, message } of commits) {
        writeFileSync(join(repo, file), `${message}\n`);
        await gitOrThrow('add', file);
        await gitOrThrow('commit', '-q', '-m', message);
      }
    }, LONG);
    afterAll(() => rmSync(repo, { recursive: true, force: true }));

    it(
      'derives the next version from the commits (0.x: breaking → minor) and bumps the whole group',
      async () => {
        const { code, output } = await runNodeScript(NX, ['release', '--dry-run', '--skip-publish'], {
          cwd: repo,
          env: NX_ENV,
        });
        // runNodeScript resolves the script from the workspace; nx finds the workspace from cwd.
        expect({ code, tail: code === 0 ? '' : output.slice(-4000) }).toEqual({ code: 0, tail: '' });
        expect(output).toMatch(/Resolved the current version as 0\.1\.0 from git tag "v0\.1\.0"/);
        expect(bumped(output, '0.2.0')).toEqual(published);
        expect(output).toContain('+ ## 0.2.0');
        expect(output).toMatch(/⚠️ +Breaking Changes/);
        expect(output).toContain('a breaking change to a hook');
        expect(output).toContain('a fix');
      },
      LONG,
    );
  });
});
