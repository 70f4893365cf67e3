import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { guideSnippets, isExcerpt } from './guide-snippets';
import { runNodeScript, workspaceRoot } from './run-process';

// The author guide in packages/core/README.md (between the author-guide markers) may only hold code that works:
// every ```ts block is either a complete module that must type-check against the libraries' real API, or,
// right after a `<!-- quote: PATH -->` line, an exact excerpt of that file (the example plugin), as a run of
// consecutive lines with their common indentation removed (Prettier dedents code blocks in Markdown).

const TSC = 'node_modules/typescript/bin/tsc';

const snippets = guideSnippets();
const standalone = snippets.filter((snippet) => snippet.quotes === undefined);
const quoted = snippets.filter((snippet) => snippet.quotes !== undefined);

describe('author guide (packages/core/README.md)', () => {
  it('recognises an excerpt only when its lines are consecutive and equally indented', () => {
    const source = 'function f() {\n  const a = 1;\n\n  return a;\n}\n';
    expect(isExcerpt(source, 'const a = 1;\n\nreturn a;')).toBe(true);
    expect(isExcerpt(source, 'function f() {\n  const a = 1;')).toBe(true);
    expect(isExcerpt(source, 'const a = 1;\nreturn a;')).toBe(false);
    expect(isExcerpt(source, 'const a = 2;')).toBe(false);
  });

  it('has code to check: standalone snippets and quotes of the example', () => {
    expect(standalone.length).toBeGreaterThanOrEqual(8);
    expect(quoted.length).toBeGreaterThanOrEqual(4);
  });

  it('every standalone snippet type-checks against the real @kdp/* API', async () => {
    // Inside the repository (dist/ is ignored) so '@kdp/core', '@grpc/grpc-js' … resolve like in a package.
    mkdirSync(join(workspaceRoot, 'dist'), { recursive: true });
    const dir = mkdtempSync(join(workspaceRoot, 'dist', '.guide-'));
    try {
      const files = standalone.map((snippet) => {
        const file = join(dir, `readme-line-${snippet.line}.ts`);
        writeFileSync(file, `${snippet.code}\n`);
        return file;
      });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: join(workspaceRoot, 'tsconfig.base.json'),
          // Snippets may declare what they illustrate without using it.
          compilerOptions: {
            noEmit: true,
            noUnusedLocals: false,
            noUnusedParameters: false,
            types: ['node'],
          },
          files,
        }),
      );
      const { code, output } = await runNodeScript(TSC, [
        '-p',
        join(dir, 'tsconfig.json'),
        '--pretty',
        'false',
      ]);
      // A message names readme-line-N.ts: N is the snippet's opening line in the README.
      expect({ code, output: output.replace(/\S*\.guide-[^/]+\//g, '') }).toEqual({ code: 0, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  // The example lives in examples/hello-device-plugin (its own package, tested from the packed tarballs).
  const examplePresent = quoted.every((snippet) => existsSync(join(workspaceRoot, snippet.quotes ?? '')));
  (examplePresent ? it : it.skip).each(quoted.map((snippet) => [snippet.line, snippet] as const))(
    'the quote at README line %i is an exact excerpt of the example',
    (_line, snippet) => {
      const source = readFileSync(join(workspaceRoot, snippet.quotes ?? ''), 'utf8');
      if (!isExcerpt(source, snippet.code)) {
        throw new Error(
          `README line ${snippet.line} no longer quotes ${snippet.quotes} exactly:\n${snippet.code}`,
        );
      }
    },
  );
});
