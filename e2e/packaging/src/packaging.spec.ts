// The published form of the libraries, end to end: each library (built by the test target's ^build) is packed
// with `npm pack`; each tarball must hold only built code, declarations, README, LICENSE and package.json; then
// the example plugin is copied to a clean temp dir outside the repository (no workspace node_modules above it),
// installed with a plain `npm install <tarballs>` (other dependencies come from the registry) and its own
// `npm test` (kubelet-sim check included) must pass; and a plain consumer must load and type-check the packages.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bareRequires } from './bare-requires';
import { checkPackageFiles, type PackedManifest } from './package-files';
import { runCommand, type CommandResult } from './run-command';

const workspace = join(__dirname, '..', '..', '..');
const libraries = ['api', 'base', 'core', 'topology', 'kubelet-sim', 'dra'] as const;
type Library = (typeof libraries)[number];

interface Packed {
  readonly tarball: string;
  readonly files: string[];
  readonly root: string;
  readonly manifest: PackedManifest & {
    name: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
}

let work: string;
const packed = new Map<Library, Packed>();
const tarballs = (): string[] => libraries.map((lib) => packed.get(lib)?.tarball ?? '');

/** Every import specifier the packed libraries export (`@kdp/core`, `@kdp/core/plugin`, …), package.json aside. */
function entrySpecifiers(): string[] {
  return libraries.flatMap((lib) =>
    Object.keys(packed.get(lib)?.manifest.exports ?? {})
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => (subpath === '.' ? `@kdp/${lib}` : `@kdp/${lib}/${subpath.replace(/^\.\//, '')}`)),
  );
}

/** Runs a command, prints how long it took, and fails with its output unless it exits 0. */
async function mustRun(what: string, command: string, args: string[], cwd: string): Promise<CommandResult> {
  const result = await runCommand(command, args, { cwd, timeoutMs: 480_000 });
  console.log(`${what}: exit ${String(result.code)} in ${(result.ms / 1000).toFixed(1)} s`);
  if (result.code !== 0) throw new Error(`${what} failed (exit ${String(result.code)}):\n${result.output}`);
  return result;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'kdp-pack-'));
  const tgz = join(work, 'tgz');
  mkdirSync(tgz);
  for (const lib of libraries) {
    if (!existsSync(join(workspace, 'packages', lib, 'dist', 'index.js'))) {
      throw new Error(
        `packages/${lib} is not built; run \`npx nx run e2e-packaging:test\` (it builds first)`,
      );
    }
    const pack = await mustRun(
      `npm pack @kdp/${lib}`,
      'npm',
      ['pack', '--json', '--pack-destination', tgz, '-w', `@kdp/${lib}`],
      workspace,
    );
    const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
    const tarball = join(tgz, filename);
    // Unpack it with tar, independently of npm's own listing: this is what a consumer gets.
    const root = join(work, 'unpacked', lib);
    mkdirSync(root, { recursive: true });
    await mustRun(`tar ${filename}`, 'tar', ['-xzf', tarball, '-C', root, '--strip-components=1'], work);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Packed['manifest'];
    packed.set(lib, { tarball, files: filesUnder(root), root, manifest });
  }
}, 300_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe.each(libraries)('the @kdp/%s tarball', (lib) => {
  const get = (): Packed => {
    const p = packed.get(lib);
    if (p === undefined) throw new Error(`@kdp/${lib} was not packed`);
    return p;
  };

  it('holds only built code, declarations, bins, README.md, LICENSE and package.json, and every entry point', () => {
    const { files, manifest } = get();
    console.log(`@kdp/${lib}: ${files.length} files\n  ${files.join('\n  ')}`);
    expect(checkPackageFiles(files, manifest)).toEqual({ unexpected: [], missing: [] });
    expect(
      files.some(
        (f) => f.startsWith('src/') || /\.spec\.|\.fixture\.|tsconfig|jest\.config|project\.json/.test(f),
      ),
    ).toBe(false);
  });

  it('carries the repository LICENSE and the publishing fields', () => {
    const { root, manifest } = get();
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(workspace, 'LICENSE'), 'utf8'),
    );
    expect(manifest).toMatchObject({
      name: `@kdp/${lib}`,
      license: 'Apache-2.0',
      // Only @kdp/core/start is imported for its side effect (V8's TurboFan held off): bundlers must keep it.
      sideEffects: lib === 'core' ? ['./src/start.ts', './dist/start.js'] : false,
      engines: { node: '>=20' },
      publishConfig: { access: 'public' },
      repository: {
        type: 'git',
        url: 'git+https://github.com/kdp-dev/kdp.git',
        directory: `packages/${lib}`,
      },
    });
  });

  it('lists as dependencies exactly the packages its code requires (no dev tools), workspace ones pinned', () => {
    const { root, files, manifest } = get();
    const required = new Set(
      files
        .filter((f) => f.endsWith('.js'))
        .flatMap((f) => bareRequires(readFileSync(join(root, f), 'utf8'))),
    );
    const dependencies = manifest.dependencies ?? {};
    const peers = manifest.peerDependencies ?? {};
    expect([...required].filter((name) => !(name in dependencies) && !(name in peers))).toEqual([]);
    expect(Object.keys(dependencies).filter((name) => !required.has(name))).toEqual([]);
    for (const [name, version] of Object.entries(dependencies)) {
      if (name.startsWith('@kdp/')) expect(version).toBe('0.1.0');
    }
  });
});

describe('the example plugin, installed from the tarballs in a clean directory', () => {
  let app: string;

  beforeAll(async () => {
    app = join(work, 'hello-device-plugin');
    const example = join(workspace, 'examples', 'hello-device-plugin');
    cpSync(example, app, {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|dist)$/.test(source),
    });
    // One command for all five tarballs, so @kdp/* dependencies inside them resolve to each other, never to the
    // registry (nothing is published yet); everything else comes from the registry.
    await mustRun('npm install (example)', 'npm', ['install', '--no-audit', '--no-fund', ...tarballs()], app);
  }, 600_000);

  it('passes its own npm test: kubelet-sim check with SIGTERM, and a health flip', async () => {
    const result = await mustRun('npm test (example)', 'npm', ['test'], app);
    expect(result.output).toMatch(/# pass 2\b/);
    expect(result.output).toMatch(/# fail 0\b/);
  }, 300_000);

  it('uses the tarballs, not copies from the workspace', () => {
    for (const lib of libraries) {
      const installed = join(app, 'node_modules', '@kdp', lib);
      expect(existsSync(join(installed, 'src'))).toBe(false);
      expect(filesUnder(installed)).toEqual(packed.get(lib)?.files);
    }
  });
});

describe('a plain consumer of the installed tarballs', () => {
  let consumer: string;

  beforeAll(async () => {
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts', 'consumer-esm.mts'],
      }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      [
        "import { Healthy, validateResourceName, type Device } from '@kdp/api';",
        "import { createBackoff, systemClock, type Clock } from '@kdp/base';",
        "import { createKubeClient, type PluginDevice } from '@kdp/core';",
        "import { definePlugin, flag, runPlugin, type PluginDefinition } from '@kdp/core/plugin';",
        "import { runPluginCommand } from '@kdp/core/testing';",
        "import { parsePciAddress } from '@kdp/topology';",
        "import { createSysfsFixture } from '@kdp/topology/testing';",
        "import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';",
        "const devices: PluginDevice<{ path: string }>[] = [{ id: 'a', health: Healthy, payload: { path: '/a' } }];",
        'export const listed: readonly PluginDevice<{ path: string }>[] = devices;',
        'export const client: typeof createKubeClient = createKubeClient;',
        'export const clock: Clock = systemClock;',
        'export const backoff: typeof createBackoff = createBackoff;',
        'export const define: typeof definePlugin = definePlugin;',
        "export const dirFlag = flag.path({ description: 'a directory', valueName: 'DIR', default: '/tmp' });",
        'export const run: typeof runPlugin = runPlugin;',
        'export const runCommand: typeof runPluginCommand = runPluginCommand;',
        'export type Definition = PluginDefinition;',
        "export const valid: boolean = validateResourceName('example.com/a').valid;",
        "export const address: ReturnType<typeof parsePciAddress> = parsePciAddress('0000:3b:00.0');",
        "export const device: Device = { ID: 'a', health: Healthy, topology: undefined };",
        'export const sim: (o: { dir: string }) => Promise<KubeletSim> = createKubeletSim;',
        'export const fixture: typeof createSysfsFixture = createSysfsFixture;',
      ].join('\n'),
    );
    writeFileSync(
      join(consumer, 'consumer-esm.mts'),
      "import { createKubeClient } from '@kdp/core';\nexport const create: typeof createKubeClient = createKubeClient;\n",
    );
    // @kdp/kubelet-sim/testing loads its optional peer esbuild (bundleEntry), and @kdp/topology/testing's fuzz
    // helpers take fast-check (their types name it): a consumer of those entries installs them, at the
    // workspace's versions.
    const rootManifest = JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const dev = [
      'typescript@5.9.3',
      '@types/node@20.19.43',
      `esbuild@${rootManifest.devDependencies['esbuild'] ?? ''}`,
      `fast-check@${rootManifest.devDependencies['fast-check'] ?? ''}`,
    ];
    await mustRun(
      'npm install (consumer)',
      'npm',
      ['install', '--no-audit', '--no-fund', ...tarballs(), ...dev],
      consumer,
    );
  }, 600_000);

  it('require() loads every entry point from dist', async () => {
    const ids = entrySpecifiers();
    expect(ids).toEqual(
      expect.arrayContaining(['@kdp/base', '@kdp/core/plugin', '@kdp/core/start', '@kdp/core/testing']),
    );
    const script = [
      "const assert = require('node:assert');",
      `const ids = ${JSON.stringify(ids)};`,
      // @kdp/core/start exports nothing: it is imported for its side effect, checked below.
      "const sideEffectOnly = new Set(['@kdp/core/start']);",
      'for (const id of ids) {',
      '  assert.match(require.resolve(id), /node_modules[\\\\/]@kdp[\\\\/][\\w-]+[\\\\/]dist[\\\\/]/, id);',
      '  const loaded = require(id);',
      '  if (!sideEffectOnly.has(id)) assert.ok(Object.keys(loaded).length > 0, id);',
      '}',
      "assert.strictEqual(require('@kdp/core').optimizingCompilers.held, true, '@kdp/core/start holds TurboFan');",
      "assert.strictEqual(typeof require('@kdp/core').createKubeClient, 'function');",
      "assert.strictEqual(typeof require('@kdp/core/plugin').definePlugin, 'function');",
      "assert.strictEqual(typeof require('@kdp/base').createLogger, 'function');",
      "assert.match(require.resolve('@kdp/kubelet-sim/testing'), /dist[\\\\/]testing[\\\\/]index\\.js$/);",
      "console.log('ok');",
    ].join('\n');
    const result = await mustRun('node -e require', process.execPath, ['-e', script], consumer);
    expect(result.output.trim()).toBe('ok');
  }, 60_000);

  it('ESM import finds the named exports of the CommonJS build', async () => {
    const script =
      "import { createKubeClient } from '@kdp/core'; import { createKubeletSim } from '@kdp/kubelet-sim';" +
      "import { definePlugin } from '@kdp/core/plugin'; import { systemClock } from '@kdp/base';" +
      'console.log(typeof createKubeClient, typeof createKubeletSim, typeof definePlugin, typeof systemClock.now);';
    const result = await mustRun(
      'node --input-type=module',
      process.execPath,
      ['--input-type=module', '-e', script],
      consumer,
    );
    expect(result.output.trim()).toBe('function function function function');
  }, 60_000);

  it('type-checks with plain tsc (nodenext, strict, no skipLibCheck), every @kdp import resolved to dist', async () => {
    // The workspace-only @kdp/source condition (src/, not published) must never be what a consumer resolves.
    const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
    const trace = await mustRun(
      'tsc --noEmit (consumer)',
      process.execPath,
      [tsc, '-p', '.', '--traceResolution'],
      consumer,
    );
    const resolved = [...trace.stdout.matchAll(/successfully resolved to '([^']*\/@kdp\/[^']*)'/g)].map(
      (m) => m[1] ?? '',
    );
    expect(resolved.length).toBeGreaterThan(20);
    expect(
      resolved.filter((file) => !/\/node_modules\/@kdp\/[\w-]+\/dist\/[\w/.-]+\.d\.ts$/.test(file)),
    ).toEqual([]);
  }, 180_000);
});
