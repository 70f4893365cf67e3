// The published form of the binaries (the five plugins and the device monitor, released in the same fixed
// version group as the libraries): each package ships its bin launcher and one esbuild bundle, nothing else but
// README.md, LICENSE and package.json; its dependencies are exactly what the bundle still requires at run time
// (the native addons esbuild leaves external), since everything else is bundled in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareRequires } from './bare-requires';
import { runCommand } from './run-command';

const workspace = join(__dirname, '..', '..', '..');
const binaries = [
  ['plugin-gpu', 'gpu-device-plugin'],
  ['plugin-sriov', 'sriov-device-plugin'],
  ['plugin-infiniband', 'infiniband-device-plugin'],
  ['plugin-usb', 'usb-device-plugin'],
  ['plugin-fpga', 'fpga-device-plugin'],
  ['monitor', 'device-monitor'],
] as const;

interface Manifest {
  name: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
  main?: string;
  license: string;
  repository: { directory: string };
  publishConfig: { access: string };
}

describe.each(binaries)('the @kdp/%s tarball', (pkg, binary) => {
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

  it('names its binary, no library entry point, and the publishing fields', () => {
    expect(manifest.bin).toEqual({ [binary]: `./bin/${binary}.js` });
    expect(manifest.main).toBeUndefined();
    expect(manifest.exports).toEqual({ './package.json': './package.json' });
    expect(manifest).toMatchObject({
      license: 'Apache-2.0',
      repository: { directory: `packages/${pkg}` },
      publishConfig: { access: 'public' },
    });
  });

  it('runs from its launcher: `<binary> --version` prints the package version', async () => {
    const result = await runCommand(process.execPath, [join(dir, 'bin', `${binary}.js`), '--version'], {
      cwd: workspace,
      timeoutMs: 60_000,
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${binary} 0.1.0\n` });
  });

  it('depends on exactly what its bundle requires at run time', () => {
    const bundle = readFileSync(join(dir, 'dist', 'main.js'), 'utf8');
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(bareRequires(bundle));
  });
});
