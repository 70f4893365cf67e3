import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginDevice } from '../plugin-device';
import type { AnyResourceDeclaration } from '../resource-declaration';
import { runPluginCommand, startPluginRun } from '../testing/start-plugin-run';
import { definePlugin } from './define-plugin';
import { flag } from './flags';
import type { ServeMode, ServeModeContext } from './serve-mode';

const plugin = definePlugin({
  name: 'tiny',
  binary: 'tiny-device-plugin',
  title: 'Tiny device plugin',
  version: '1.0.0',
  scan: { run: () => ['a', 'b'] },
  resources: (ids: string[]) => ({
    resources: [
      {
        name: 'example.com/tiny',
        devices: ids.map((id): PluginDevice => ({ id, health: 'Healthy' })),
        allocate: ({ devices }) => ({ envs: { TINY: devices.map((d) => d.id).join(',') } }),
      },
    ],
  }),
});

/** A serve mode that records what it is given; `started` resolves with the resources once started. */
function recordingMode() {
  const declarations = new Map<string, AnyResourceDeclaration>();
  const lists = new Map<string, readonly PluginDevice[]>();
  let unchanged = 0;
  let context: ServeModeContext | undefined;
  let onStart: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const mode: ServeMode = {
    description: 'a test mode',
    flags: { 'fake-dir': flag.path({ description: 'a directory', valueName: 'DIR', default: '/x' }) },
    create(given) {
      context = given;
      return {
        resources: () => ({
          addResource(declaration) {
            declarations.set(declaration.name, declaration as AnyResourceDeclaration);
            declaration.source.subscribe((list) => lists.set(declaration.name, list));
          },
          async removeResource(name) {
            declarations.delete(name);
          },
          unchanged: () => void (unchanged += 1),
        }),
        start: async () => onStart(),
        stop: async () => undefined,
      };
    },
  };
  return { mode, declarations, lists, started, context: () => context, unchanged: () => unchanged };
}

describe('serve modes (runPlugin(definition, io, { modes }))', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kdp-mode-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const roots = () => ['--sysfs-root', dir, '--dev-root', dir];

  it('feeds the mode the same devices and allocate answers instead of the device plugin', async () => {
    const recorder = recordingMode();
    const run = startPluginRun(
      plugin,
      ['serve', '--mode', 'fake', ...roots(), '--fake-dir', '/y', '--node-name', 'n1'],
      { modes: { fake: recorder.mode } },
    );
    await recorder.started;
    expect(recorder.context()?.flags).toEqual({ 'fake-dir': '/y' });
    expect(recorder.context()?.nodeName).toBe('n1');
    expect(recorder.lists.get('example.com/tiny')?.map((d) => d.id)).toEqual(['a', 'b']);
    const declaration = recorder.declarations.get('example.com/tiny');
    const devices = recorder.lists.get('example.com/tiny') ?? [];
    const answer = await declaration?.allocate?.({
      resource: 'example.com/tiny',
      devices,
      containerIndex: 0,
      signal: new AbortController().signal,
    });
    // The device-list strategy's hand-over is applied, as for the kubelet's Allocate.
    expect(answer).toEqual({
      envs: { TINY: 'a,b' },
      annotations: {},
      mounts: [],
      devices: [],
      cdiDevices: [],
    });
    expect(await run.stop()).toBe(0);
  });

  it('offers the full allocation for CDI (nodes whatever the strategy), the device-list variables, and unchanged probes', async () => {
    const listed = definePlugin({
      name: 'listed',
      binary: 'listed-device-plugin',
      title: 'Listed device plugin',
      version: '1.0.0',
      scan: { run: () => ['a'], interval: '10ms', probe: () => ({}) },
      resources: (ids: string[]) => ({
        resources: [
          {
            name: 'example.com/listed',
            devices: ids.map((id): PluginDevice => ({ id, health: 'Healthy' })),
            deviceListStrategy: ['envvar'],
            deviceListEnv: (devices) => ({ LISTED_DEVICES: devices.map((d) => d.id).join(',') }),
            allocate: ({ devices }) => ({
              envs: { OWN: 'x' },
              devices: devices.map((d) => ({ containerPath: `/dev/${d.id}`, hostPath: `/dev/${d.id}` })),
            }),
          },
        ],
      }),
    });
    const recorder = recordingMode();
    const run = startPluginRun(listed, ['serve', '--mode', 'fake', ...roots(), '--node-name', 'n1'], {
      modes: { fake: recorder.mode },
    });
    await recorder.started;
    const declaration = recorder.declarations.get('example.com/listed');
    const devices = recorder.lists.get('example.com/listed') ?? [];
    const context = {
      resource: 'example.com/listed',
      devices,
      containerIndex: 0,
      signal: new AbortController().signal,
    };
    // The device plugin's hand-over (envvar): the list variable, no nodes; under CDI alone: the nodes.
    expect(await declaration?.allocate?.(context)).toMatchObject({
      envs: { OWN: 'x', LISTED_DEVICES: 'a' },
      devices: [],
    });
    expect(await declaration?.allocateForCdi?.(context)).toEqual({
      envs: { OWN: 'x' },
      devices: [{ containerPath: '/dev/a', hostPath: '/dev/a' }],
    });
    expect(declaration?.deviceListEnv?.(devices)).toEqual({ LISTED_DEVICES: 'a' });
    // The probe finds nothing changed on every tick: the mode is told.
    const deadline = Date.now() + 10_000;
    while (recorder.unchanged() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(recorder.unchanged()).toBeGreaterThan(0);
    expect(await run.stop()).toBe(0);
  });

  it("refuses a mode's flag in another mode, and device-plugin flags in a mode (exit 2)", async () => {
    const modes = { fake: recordingMode().mode };
    const foreign = await runPluginCommand(plugin, ['serve', ...roots(), '--fake-dir', '/y'], { modes });
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('--fake-dir applies to --mode fake only, not --mode device-plugin');
    const dp = await runPluginCommand(
      plugin,
      ['serve', '--mode', 'fake', ...roots(), '--device-plugin-dir', dir],
      { modes },
    );
    expect(dp.code).toBe(2);
    expect(dp.stderr).toContain('--device-plugin-dir applies to --mode device-plugin only');
    const unknown = await runPluginCommand(plugin, ['serve', '--mode', 'other', ...roots()], { modes });
    expect(unknown.code).toBe(2);
  });

  it("refuses a plugin's flag of one mode in another mode (exit 2), and takes it in its own", async () => {
    const modal = definePlugin({
      ...plugin,
      flags: { 'fake-only': flag.boolean({ description: 'acts in --mode fake', mode: 'fake' }) },
    });
    const modes = { fake: recordingMode().mode };
    const refused = await runPluginCommand(modal, ['serve', ...roots(), '--fake-only'], { modes });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--fake-only applies to --mode fake only, not --mode device-plugin');
    const discover = await runPluginCommand(modal, ['discover', ...roots(), '--fake-only'], { modes });
    expect(discover.code).toBe(2);
    const recorder = recordingMode();
    const run = startPluginRun(modal, ['serve', '--mode', 'fake', ...roots(), '--fake-only'], {
      modes: { fake: recorder.mode },
    });
    await recorder.started;
    expect(await run.stop()).toBe(0);
  });

  it('offers --mode only where modes are given, and lists them in --help', async () => {
    const help = await runPluginCommand(plugin, ['--help'], { modes: { fake: recordingMode().mode } });
    expect(help.stdout).toContain('--mode MODE');
    expect(help.stdout).toContain('--fake-dir DIR');
    expect(help.stdout).toMatch(/fake\s+a test mode/);
    const plain = await runPluginCommand(plugin, ['--help']);
    expect(plain.stdout).not.toContain('--mode');
    const refused = await runPluginCommand(plugin, ['serve', '--mode', 'fake', ...roots()]);
    expect(refused.code).toBe(2);
  });
});
