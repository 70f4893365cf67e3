import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIBRARIES, libraryEntryPoints } from './library-entry-points';
import { runNodeScript, workspaceRoot } from './run-process';

// `npm run docs` builds the API reference with the root typedoc.json (warnings are errors). These tests run
// the same TypeDoc CLI, into a temp folder, and print every warning when there is one.

const TYPEDOC = 'node_modules/typedoc/bin/typedoc';
const LONG = 300_000;

interface JsonReflection {
  readonly name: string;
  readonly kind: number;
  readonly children?: readonly JsonReflection[];
}

/** Module names (kind Module = 2) anywhere in TypeDoc's JSON output, e.g. `@kdp/kubelet-sim/testing`. */
function moduleNames(node: JsonReflection): string[] {
  const own = node.kind === 2 ? [node.name] : [];
  return [...own, ...(node.children ?? []).flatMap(moduleNames)];
}

describe('API reference (TypeDoc)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-td-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'builds the reference of every library entry point without a single warning',
    async () => {
      const { code, output } = await runNodeScript(TYPEDOC, [
        '--out',
        join(dir, 'html'),
        '--json',
        join(dir, 'docs.json'),
      ]);
      const problems = output.split('\n').filter((line) => /\[(warning|error)\]/.test(line));
      expect({ code, problems }).toEqual({ code: 0, problems: [] });

      const project = JSON.parse(readFileSync(join(dir, 'docs.json'), 'utf8')) as JsonReflection;
      const documented = moduleNames(project);
      for (const entry of libraryEntryPoints()) expect(documented).toContain(entry.specifier);
    },
    LONG,
  );

  it('covers every published library: the packages with typed entry points, all in the root typedoc.json', () => {
    // A library is a published package whose exports map names declarations (`types`); the binaries' packages
    // (plugins, monitor, kdp-device-plugins) export only their workspace sources and package.json.
    const published = readdirSync(join(workspaceRoot, 'packages')).filter((dir) => {
      const file = join(workspaceRoot, 'packages', dir, 'package.json');
      if (!existsSync(file)) return false;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
        private?: boolean;
        exports?: Record<string, unknown>;
      };
      const typed = Object.values(manifest.exports ?? {}).some(
        (target) => typeof target === 'object' && target !== null && 'types' in target,
      );
      return manifest.private !== true && typed;
    });
    expect(published.sort()).toEqual([...LIBRARIES].sort());
    const root = JSON.parse(readFileSync(join(workspaceRoot, 'typedoc.json'), 'utf8')) as {
      entryPoints: string[];
    };
    expect([...root.entryPoints].sort()).toEqual(LIBRARIES.map((pkg) => `packages/${pkg}`).sort());
  });

  it('documents exactly the entry points each library exports (per-package typedoc.json)', () => {
    for (const pkg of LIBRARIES) {
      const config = JSON.parse(
        readFileSync(join(workspaceRoot, 'packages', pkg, 'typedoc.json'), 'utf8'),
      ) as { entryPoints: string[] };
      const exported = libraryEntryPoints()
        .filter((entry) => entry.pkg === pkg)
        .map((entry) => entry.source);
      expect({ pkg, entryPoints: [...config.entryPoints].sort() }).toEqual({
        pkg,
        entryPoints: exported.sort(),
      });
    }
  });

  it(
    'fails, naming the type, when a public signature uses a type the entry point does not export',
    async () => {
      // A library shaped like ours whose exported function returns an unexported interface.
      const pkg = join(dir, 'leaky');
      mkdirSync(join(pkg, 'src'), { recursive: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'leaky', version: '1.0.0' }));
      writeFileSync(
        join(pkg, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', types: [] },
          include: ['src'],
        }),
      );
      writeFileSync(join(pkg, 'typedoc.json'), JSON.stringify({ entryPoints: ['src/index.ts'] }));
      writeFileSync(
        join(pkg, 'src', 'index.ts'),
        [
          '/** Not exported. */',
          'interface Hidden {',
          '  readonly a: number;',
          '}',
          '/** Exported, and its return type is not. */',
          'export function leak(): Hidden {',
          '  return { a: 1 };',
          '}',
          '',
        ].join('\n'),
      );
      const { code, output } = await runNodeScript(TYPEDOC, [
        '--options',
        join(workspaceRoot, 'typedoc.json'),
        '--entryPoints',
        pkg,
        '--out',
        join(dir, 'leaky-html'),
      ]);
      expect(output).toMatch(/Hidden, defined in .*is referenced by .*leak/);
      expect(code).not.toBe(0);
    },
    LONG,
  );
});
