import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { deployDir, repoRoot } from './deploy-dir';
import {
  allInOne,
  deployedPlugins,
  singlePlugins,
  type DeployedConfig,
  type DeployedPlugin,
} from './kdp-plugins';
import type { KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';

// The example ConfigMaps and the DaemonSets' flags must be what each plugin's own binary accepts: each plugin
// is bundled as its build target does and run with them on an empty node: the ConfigMaps with `discover`, the
// DaemonSet's command line as `serve` until it logs `starting` (flags, directories and configuration accepted).

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const work = mkdtempSync(join(tmpdir(), 'kdp-dpl-'));
const bundles = new Map<string, string>();

function run(bundle: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // NODE_PATH: the bundles keep native addons (koffi, usb) external, as the build targets do.
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    execFile(process.execPath, [bundle, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
        stdout,
        stderr,
      });
    });
  });
}

function configOf(objects: KubeObject[], config: DeployedConfig): string {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === config.configMap);
  const text = (configMap?.['data'] as Record<string, string> | undefined)?.[config.key];
  if (text === undefined) throw new Error(`no ${config.key} in ${config.configMap}`);
  return text;
}

function containerOf(
  objects: KubeObject[],
  plugin: DeployedPlugin,
): { args: string[]; volumeMounts: { mountPath: string }[] } {
  const ds = objects.find((o) => o.kind === 'DaemonSet' && o.metadata.name === plugin.binary) as KubeObject;
  return (
    ds['spec'] as {
      template: { spec: { containers: [{ args: string[]; volumeMounts: { mountPath: string }[] }] } };
    }
  ).template.spec.containers[0];
}

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);

/** Runs `serve` until it logs `starting`, then SIGTERM; a usage or configuration error exits before that. */
function serveUntilStarted(bundle: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    const child = spawn(process.execPath, [bundle, ...args], { env });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // One SIGTERM, as the kubelet sends: a second one after the handlers are gone would end it by signal.
      if (!stopping && stderr.includes('"msg":"starting"')) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The DaemonSet's args with every path flag moved under `root`; a path flag must name a mounted path (a mount,
 * below one, or the parent of mounts such as /host/sys).
 */
function localArgs(args: string[], mountPaths: string[], root: string): string[] {
  return args.flatMap((arg) => {
    if (arg.startsWith('--metrics-address=')) return [arg.replace(/:\d+$/, ':0')]; // no fixed port in tests
    const [flag, value] = arg.split(/=(.*)/s) as [string, string | undefined];
    if (value === undefined || !value.startsWith('/')) return [arg];
    if (!mountPaths.some((mount) => under(value, mount) || under(mount, value))) {
      throw new Error(`${flag}=${value}: the path is not mounted into the container`);
    }
    return [`${flag}=${join(root, value)}`];
  });
}

beforeAll(() => {
  for (const plugin of deployedPlugins) {
    const outfile = join(work, `${plugin.name}.js`);
    buildSync({
      entryPoints: [join(repoRoot, 'packages', plugin.packageDir, 'src', 'main.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      conditions: ['@kdp/source'],
      external: ['koffi', 'usb'],
      outfile,
      logLevel: 'warning',
    });
    bundles.set(plugin.name, outfile);
  }
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const cases = [
  ...deployedPlugins.map((plugin) => ({ build: plugin.name, plugin })),
  { build: 'overlays/gpu-cdi', plugin: singlePlugins[0] as DeployedPlugin },
];

/** The discover flags that hand each of a plugin's example configurations (written under `root`) to its flag. */
function configFlags(
  plugin: DeployedPlugin,
  objects: KubeObject[],
  root: string,
  mutate?: DeployedConfig,
): string[] {
  return plugin.configs.map((config) => {
    const file = join(root, `${plugin.configs.length > 1 ? config.configMap : ''}${config.key}`);
    writeFileSync(
      file,
      config === mutate ? broken(config, configOf(objects, config)) : configOf(objects, config),
    );
    return `${config.flag}=${file}`;
  });
}

/** A configuration the plugin must refuse. JSON: a list turned into a number; YAML: an unknown key of no use. */
function broken(config: DeployedConfig, text: string): string {
  return config.key.endsWith('.json')
    ? text.replace('"resourceList": [', '"resourceList": 7, "x": [')
    : `${text}\nresourceList: 7\nnoSuchKey: [\n`;
}

describe.each(cases)('deploy/$build: the plugin accepts what the manifests give it', ({ build, plugin }) => {
  const objects = kustomizeBuild(join(deployDir, build));

  it(`the example ConfigMaps validate with ${plugin.binary} (exit 0, no unknown key)`, async () => {
    const root = mkdtempSync(join(work, `${plugin.name}-`));
    for (const dir of ['sys', 'dev', 'proc']) mkdirSync(join(root, dir));
    const result = await run(bundles.get(plugin.name) as string, [
      'discover',
      '--output=json',
      ...configFlags(plugin, objects, root),
      `--sysfs-root=${join(root, 'sys')}`,
      `--dev-root=${join(root, 'dev')}`,
      ...(plugin.procfs ? [`--proc-root=${join(root, 'proc')}`] : []),
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(result.stdout) as { warnings: string[] };
    const files = plugin.configs.map((config) =>
      join(root, `${plugin.configs.length > 1 ? config.configMap : ''}${config.key}`),
    );
    expect(report.warnings.filter((warning) => files.some((file) => warning.includes(file)))).toEqual([]);
  }, 60_000);

  it.each(plugin.configs.map((config) => [config.configMap, config] as const))(
    'a broken copy of %s is refused (exit 2), so the check above is real',
    async (_name, config) => {
      const root = mkdtempSync(join(work, `${plugin.name}-bad-`));
      const result = await run(bundles.get(plugin.name) as string, [
        'discover',
        ...configFlags(plugin, objects, root, config),
        `--sysfs-root=${root}`,
        `--dev-root=${root}`,
        ...(plugin.procfs ? [`--proc-root=${root}`] : []),
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(root);
    },
    60_000,
  );

  it(`the DaemonSet's flags are ${plugin.binary}'s own (run as serve with the mounts under a temp dir)`, async () => {
    const root = mkdtempSync(join(work, `${plugin.name}-ds-`));
    const { args, volumeMounts } = containerOf(objects, plugin);
    const mountPaths = volumeMounts.map((mount) => mount.mountPath);
    for (const path of mountPaths) mkdirSync(join(root, path), { recursive: true });
    for (const config of plugin.configs)
      writeFileSync(join(root, config.dir, config.key), configOf(objects, config));
    const result = await serveUntilStarted(
      bundles.get(plugin.name) as string,
      localArgs(args, mountPaths, root),
    );
    expect({
      code: result.code,
      stderr: result.stderr.split('\n').filter((line) => !line.startsWith('{')),
    }).toEqual({
      code: 0,
      stderr: [''],
    });
    expect(result.stderr).toContain('"msg":"starting"');
  }, 60_000);
});

it("the all-in-one mounts exactly the single plugins' ConfigMaps", () => {
  expect(allInOne.configs.map((config) => config.configMap)).toEqual(
    singlePlugins.map((plugin) => plugin.configs[0]?.configMap),
  );
});
