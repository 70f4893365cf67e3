import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { z } from 'zod';
import { runPluginCommand, startPluginRun, type PluginRun } from '../testing/start-plugin-run';
import { definePlugin } from './define-plugin';
import { flag } from './flags';
import type { MultiPluginProgram } from './run-plugin';

// Two small plugins that each advertise one device per file in their own --<name>-dir, under a resource
// named by their configuration (so a test can make them collide).
const schema = z.strictObject({ resource: z.string() });
const filePlugin = (name: string, resource: string) =>
  definePlugin({
    name,
    binary: `${name}-device-plugin`,
    title: `${name} plugin`,
    version: '0.0.1',
    config: { schema, defaults: { resource } },
    flags: { dir: flag.path({ description: 'device files', valueName: 'DIR' }) },
    scan: {
      interval: name === 'alpha' ? '1h' : '30m',
      watch: ({ flags }) => ({ paths: flags.dir === undefined ? [] : [flags.dir] }),
      run: ({ flags }) => (flags.dir === undefined ? [] : readdirSync(flags.dir)),
    },
    resources: (files, { config }) => ({
      resources: [
        { name: config.resource, devices: files.map((id) => ({ id, health: 'Healthy' as const })) },
      ],
    }),
  });

const program: MultiPluginProgram = {
  binary: 'kdp-test-plugins',
  title: 'Test plugins in one process',
  version: '9.9.9',
  plugins: [filePlugin('alpha', 'example.com/alpha'), filePlugin('beta', 'example.com/beta')],
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kdp-multi-'));
  for (const dir of ['a', 'b', 'dp']) mkdirSync(join(root, dir));
  writeFileSync(join(root, 'a', 'a0'), '');
  writeFileSync(join(root, 'b', 'b0'), '');
  writeFileSync(join(root, 'b', 'b1'), '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));
const roots = (): string[] => ['--sysfs-root', root, '--dev-root', root];

describe('runPlugins', () => {
  it('prefixes each plugin flag and configuration with the plugin name in --help', async () => {
    const { code, stdout } = await runPluginCommand(program, ['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('  --plugins LIST               the plugins to run [alpha,beta]\n');
    expect(stdout).toContain('alpha: alpha plugin (default poll interval 1h):\n');
    expect(stdout).toContain(
      '  --alpha-config FILE          YAML or JSON configuration, or a directory of them (one per node); absent = defaults\n',
    );
    expect(stdout).toContain('  --beta-dir DIR               device files\n');
    expect(stdout).toContain('beta: beta plugin (default poll interval 30m):\n');
  });

  it('discovers with every chosen plugin, or only those in --plugins', async () => {
    const argv = [
      'discover',
      '--output',
      'json',
      '--alpha-dir',
      join(root, 'a'),
      '--beta-dir',
      join(root, 'b'),
      ...roots(),
    ];
    const all = JSON.parse((await runPluginCommand(program, argv)).stdout);
    expect(all.resources.map((r: { resourceName: string }) => r.resourceName)).toEqual([
      'example.com/alpha',
      'example.com/beta',
    ]);
    const beta = await runPluginCommand(program, [
      'discover',
      '--output',
      'json',
      '--plugins',
      'beta',
      '--beta-dir',
      join(root, 'b'),
      ...roots(),
    ]);
    expect(JSON.parse(beta.stdout).resources).toEqual([
      expect.objectContaining({ resourceName: 'example.com/beta' }),
    ]);
    const stray = await runPluginCommand(program, [
      'discover',
      '--plugins',
      'beta',
      '--alpha-dir',
      root,
      ...roots(),
    ]);
    expect([stray.code, stray.stderr]).toEqual([
      2,
      'kdp-test-plugins: --alpha-dir is given but alpha is not among --plugins\n\nRun kdp-test-plugins --help for the flags.\n',
    ]);
    const unknown = await runPluginCommand(program, ['discover', '--plugins', 'gamma', ...roots()]);
    expect(unknown.stderr).toMatch(/^kdp-test-plugins: --plugins "gamma": expected alpha, beta\n/);
  });

  it('serves every plugin from one process; a resource two plugins claim is served by the first only', async () => {
    const dp = join(root, 'dp');
    const sim = await createKubeletSim({ dir: dp });
    const config = join(root, 'beta.yaml');
    writeFileSync(config, 'resource: example.com/alpha\n');
    let run: PluginRun | undefined;
    try {
      const alpha = sim.waitFor('registered', (e) => e.resource === 'example.com/alpha', 30_000);
      run = startPluginRun(program, [
        'serve',
        '--device-plugin-dir',
        dp,
        '--alpha-dir',
        join(root, 'a'),
        '--beta-dir',
        join(root, 'b'),
        '--beta-config',
        config,
        ...roots(),
      ]);
      await alpha;
      await sim.until('example.com/alpha', (state) => state.healthy.length === 1);
      await run.waitForLog(
        (l) =>
          l['msg'] === 'another plugin of this process serves this resource; not added' &&
          l['plugin'] === 'beta',
      );
      const beta = sim.waitFor('registered', (e) => e.resource === 'example.com/beta', 30_000);
      writeFileSync(config, 'resource: example.com/beta\n');
      await beta;
      await sim.until('example.com/beta', (state) => state.healthy.length === 2);
      expect(sim.resource('example.com/alpha')?.healthy).toEqual(['a0']);
      expect(sim.resource('example.com/beta')?.healthy).toEqual(['b0', 'b1']);
      expect(run.logs().find((l) => l['msg'] === 'starting')).toMatchObject({
        plugins: ['alpha', 'beta'],
        name: 'kdp-test-plugins',
      });
      expect(await run.stop()).toBe(0);
    } finally {
      await run?.stop();
      await sim.close();
    }
  }, 60_000);
});
