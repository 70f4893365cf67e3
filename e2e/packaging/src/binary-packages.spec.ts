// The published form of the binaries (the five plugins, the device monitor and kdp-device-plugins, released in
// the same fixed version group as the libraries): each package ships its bin launcher and one esbuild bundle,
// nothing else but README.md, LICENSE and package.json; its dependencies are exactly what the bundle still
// requires at run time (the native addons esbuild leaves external), since everything else is bundled in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareRequires } from './bare-requires';
import { manifestTargets } from './package-files';
import { runCommand } from './run-command';

const workspace = join(__dirname, '..', '..', '..');
/** Package folder, binary, and the native addons its bundle leaves external (its only dependencies). */
const binaries = [
  ['plugin-gpu', 'gpu-device-plugin', ['koffi']],
  ['plugin-sriov', 'sriov-device-plugin', ['koffi']],
  ['plugin-infiniband', 'infiniband-device-plugin', ['koffi']],
  ['plugin-usb', 'usb-device-plugin', ['koffi', 'usb']],
  ['plugin-fpga', 'fpga-device-plugin', ['koffi']],
  ['monitor', 'device-monitor', []],
  ['device-plugins', 'kdp-device-plugins', ['koffi', 'usb']],
] as const;

interface Manifest {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
  main?: string;
  types?: string;
  license: string;
  repository: { directory: string };
  publishConfig: { access: string };
}

/** The versions package-lock.json installs (and tools/image ships in the images), by package name. */
const locked = (
  JSON.parse(readFileSync(join(workspace, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  }
).packages;

describe.each(binaries)('the @kdp/%s tarball', (pkg, binary, addons) => {
  const dir = join(workspace, 'packages', pkg);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

  it('holds only its launcher, its bundle, README.md, LICENSE and package.json', async () => {
    const result = await runCommand('npm', ['pack', '--dry-run', '--json', '-w', `@kdp/${pkg}`], {
      cwd: workspace,
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(0);
    const [{ files }] = JSON.parse(result.stdout) as [{ files: { path: string }[] }];
    expect(files.map((f) => f.path).sort()).toEqual(
      ['LICENSE', 'README.md', `bin/${binary}.js`, 'dist/main.js', 'package.json'].sort(),
    );
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(workspace, 'LICENSE'), 'utf8'));
  });

  it('names its binary, no library entry point for consumers, and the publishing fields', () => {
    expect(manifest.bin).toEqual({ [binary]: `./bin/${binary}.js` });
    expect(manifest.main).toBeUndefined();
    expect(manifest.types).toBeUndefined();
    // A plugin package exports its definition and its test helpers to the workspace only (the bundle, the demo,
    // the e2e suites): through the `@kdp/source` condition alone, which no consumer resolves.
    expect(manifest.exports).toEqual(
      pkg.startsWith('plugin-')
        ? {
            '.': { '@kdp/source': './src/index.ts' },
            './testing': { '@kdp/source': './src/testing/index.ts' },
            './package.json': './package.json',
          }
        : { './package.json': './package.json' },
    );
    // So a consumer can resolve nothing but package.json: no `default` or `types` naming a file not published.
    expect(manifestTargets({ exports: manifest.exports ?? {} })).toEqual(['package.json']);
    const sources = Object.values(manifest.exports ?? {}).flatMap((target) =>
      typeof target === 'object' && target !== null ? Object.values(target) : [],
    );
    expect(sources.filter((source) => !existsSync(join(dir, String(source))))).toEqual([]);
    expect(manifest).toMatchObject({
      license: 'Apache-2.0',
      repository: { directory: `packages/${pkg}` },
      publishConfig: { access: 'public' },
    });
  });

  it('runs from its launcher: `<binary> --version` prints the binary and the package version', async () => {
    const result = await runCommand(process.execPath, [join(dir, 'bin', `${binary}.js`), '--version'], {
      cwd: workspace,
      timeoutMs: 60_000,
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: `${binary} ${manifest.version}\n`,
    });
  });

  it(`depends on exactly what its bundle requires at run time (${addons.join(', ') || 'nothing'})`, () => {
    const bundle = readFileSync(join(dir, 'dist', 'main.js'), 'utf8');
    expect(bareRequires(bundle)).toEqual([...addons]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(bareRequires(bundle));
    // At the version the workspace installs, which is also the one its image ships.
    for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
      expect({ name, version }).toEqual({ name, version: locked[`node_modules/${name}`]?.version });
    }
  });
});
