import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIBRARIES, libraryEntryPoints } from './library-entry-points';
import { runNodeScript, runProcess, workspaceRoot } from './run-process';

// The committed API reports (packages/<x>/api-report/*.api.md) must match the public API as it is now, so
// that any change to an exported signature shows up in review as a diff of a report. This regenerates them
// into a temp folder and fails with the diff when one is stale.

const SCRIPT = 'e2e/docs/scripts/api-report.mjs';

/** `git diff --no-index` of two files: a unified diff (git is there wherever the repository was cloned). */
async function unifiedDiff(committed: string, fresh: string): Promise<string> {
  const { output } = await runProcess('git', ['diff', '--no-index', '--no-color', '--', committed, fresh]);
  return output;
}

describe('API reports (API Extractor)', () => {
  let out: string;
  let generated: { code: number; output: string };
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'kdp-ar-'));
    generated = await runNodeScript(SCRIPT, ['--out', out]);
  }, 300_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('regenerates without API Extractor errors or warnings', () => {
    expect(generated).toEqual({ code: 0, output: expect.any(String) as string });
  });

  it('commits one report per library entry point, and no other', () => {
    const expected = libraryEntryPoints().map((entry) => `packages/${entry.pkg}/${entry.report}`);
    const committed = LIBRARIES.flatMap((pkg) => {
      const folder = join(workspaceRoot, 'packages', pkg, 'api-report');
      return existsSync(folder)
        ? readdirSync(folder).map((file) => `packages/${pkg}/api-report/${file}`)
        : [];
    });
    expect(committed.sort()).toEqual(expected.sort());
  });

  it.each(libraryEntryPoints().map((entry) => [entry.specifier, entry] as const))(
    'the committed report of %s is up to date',
    async (_specifier, entry) => {
      const committedFile = join(workspaceRoot, 'packages', entry.pkg, entry.report);
      const freshFile = join(out, entry.pkg, entry.report.replace(/^api-report\//, ''));
      const fresh = readFileSync(freshFile, 'utf8');
      const committed = existsSync(committedFile) ? readFileSync(committedFile, 'utf8') : '';
      if (fresh !== committed) {
        throw new Error(
          `packages/${entry.pkg}/${entry.report} no longer matches the public API of ${entry.specifier}.\n` +
            'Run `npm run api-report`, review the change below (a removed or changed line is a breaking change ' +
            'for plugin authors) and commit the report:\n\n' +
            (await unifiedDiff(committedFile, freshFile)),
        );
      }
    },
  );
});
