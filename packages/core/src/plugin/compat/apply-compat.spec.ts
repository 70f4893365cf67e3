import { UsageError } from '../exit-code';
import { applyCompat, applyConfigPatches } from './apply-compat';
import type { CompatLayer } from './compat-layer';
import { klogFlags } from './klog-flags';

const layer: CompatLayer = {
  anchor: 'example/anchor v1',
  flags: {
    ...klogFlags,
    'config-file': { kind: 'value', description: 'the file', apply: (v, to) => to.flag('config', v) },
    'shared-dev-num': {
      kind: 'value',
      description: 'replicas',
      apply: (v, to) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${v} is not a positive integer`);
        to.setConfig(['sharing', 'replicas'], n);
      },
    },
    'use-cdi': {
      kind: 'boolean',
      description: 'cdi',
      apply: (v, to) => v === 'true' && to.flag('device-list-strategy', 'cdi'),
    },
    'log-level': {
      kind: 'value',
      description: 'numeric',
      apply: (v, to) => to.flag('log-level', Number(v) >= 4 ? 'debug' : 'info'),
    },
    legacy: { kind: 'boolean', refuse: 'we do it another way' },
  },
  env: {
    CONFIG_FILE: { kind: 'value', description: 'the file', apply: (v, to) => to.flag('config', v) },
    FAIL_ON_INIT_ERROR: {
      kind: 'boolean',
      description: 'x',
      apply: (v, to) => to.setConfig(['fail'], v === 'true'),
    },
    MPS_ROOT: { kind: 'value', refuse: 'no MPS' },
  },
};

const ours: Record<string, readonly string[] | 'bool'> = {
  config: [],
  'log-level': ['trace', 'debug', 'info', 'warn', 'error'],
  'device-list-strategy': [],
  help: 'bool',
};
const run = (argv: readonly string[], env: Record<string, string> = {}) =>
  applyCompat({
    layers: [layer],
    argv,
    env,
    ownFlag: (name, value) => {
      const spec = ours[name];
      if (spec === undefined) return undefined;
      if (spec === 'bool') return true;
      return value !== undefined && (spec.length === 0 || spec.includes(value));
    },
    ownTakesValue: (name) => ours[name] !== undefined && ours[name] !== 'bool',
  });

describe('applyCompat', () => {
  it('turns Go-style anchor flags, in every spelling, into our flags and config keys', () => {
    const result = run(['-config-file=/etc/a.json', '--shared-dev-num', '4', '-use-cdi', 'serve']);
    expect(result.argv).toEqual(['--config', '/etc/a.json', '--device-list-strategy', 'cdi', 'serve']);
    expect(result.patches).toEqual([{ path: ['sharing', 'replicas'], value: 4, source: '--shared-dev-num' }]);
    expect(result.anchorFlags).toBe(true);
    expect(result.applied[0]).toBe('-config-file /etc/a.json (example/anchor v1) → --config /etc/a.json');
  });

  it("keeps our own flag when its value is valid for ours, and reads it as the anchor's otherwise", () => {
    expect(run(['--log-level', 'debug', 'serve']).argv).toEqual(['--log-level', 'debug', 'serve']);
    expect(run(['--log-level=10', 'serve']).argv).toEqual(['--log-level', 'debug', 'serve']);
    expect(run(['--log-level', '2', 'serve']).argv).toEqual(['--log-level', 'info', 'serve']);
  });

  it('applies env first, anchor flags over env, and our explicit flags over both', () => {
    const env = { CONFIG_FILE: '/env.yaml' };
    expect(run(['serve'], env).argv).toEqual(['--config', '/env.yaml', 'serve']);
    expect(run(['-config-file', '/flag.yaml'], env).argv).toEqual(['--config', '/flag.yaml']);
    expect(run(['--config', '/ours.yaml', '-config-file', '/flag.yaml'], env).argv).toEqual([
      '--config',
      '/ours.yaml',
    ]);
    expect(run([], { FAIL_ON_INIT_ERROR: 'FALSE' }).patches).toEqual([
      { path: ['fail'], value: false, source: 'environment variable FAIL_ON_INIT_ERROR' },
    ]);
    expect(run([], { CONFIG_FILE: '' }).argv).toEqual([]);
  });

  it('maps klog flags onto our log level', () => {
    expect(run(['-v=5', '-logtostderr']).argv).toEqual(['--log-level', 'debug']);
    expect(run(['-stderrthreshold', 'WARNING']).argv).toEqual(['--log-level', 'warn']);
    expect(run(['-log_dir=/var/log/x']).argv).toEqual(['--log-dir', '/var/log/x']);
  });

  it('refuses refused options, bad values, bad booleans and unknown single-dash flags with a usage error', () => {
    expect(() => run(['-legacy'])).toThrow(
      new UsageError('-legacy (example/anchor v1) is not supported: we do it another way'),
    );
    expect(() => run([], { MPS_ROOT: '/run/mps' })).toThrow(
      /environment variable MPS_ROOT .* not supported: no MPS/,
    );
    expect(() => run(['-shared-dev-num=0'])).toThrow(
      new UsageError('-shared-dev-num: 0 is not a positive integer'),
    );
    expect(() => run(['-use-cdi=maybe'])).toThrow(/-use-cdi: "maybe" is not a boolean/);
    expect(() => run(['-shared-dev-num'])).toThrow(/-shared-dev-num needs a value/);
    expect(() => run(['-vmodule=x=2'])).toThrow(/one log level per process/);
    expect(() => run(['-nosuch'])).toThrow(new UsageError('unknown flag -nosuch'));
  });

  it('leaves what is not an anchor flag to our parser, and stops at --', () => {
    expect(run(['discover', '--output', 'json', '-h']).argv).toEqual(['discover', '--output', 'json', '-h']);
    expect(run(['--', '-legacy']).argv).toEqual(['--', '-legacy']);
    expect(run(['discover']).anchorFlags).toBe(false);
  });
});

describe('applyCompat with several layers and repeatable flags', () => {
  const version: CompatLayer = {
    anchor: 'other/anchor v2',
    flags: {
      v: { kind: 'boolean', description: 'print the version', apply: (_v, to) => to.flag('version') },
      device: {
        kind: 'value',
        description: 'a device',
        apply: (v, to) => to.appendConfig(['devices'], { name: v }),
      },
    },
  };
  const both = (argv: readonly string[]) =>
    applyCompat({
      layers: [version, layer],
      argv,
      env: {},
      ownFlag: () => undefined,
      ownTakesValue: () => false,
    });

  it("tries every layer's option of a name: the first that takes the value wins", () => {
    expect(both(['-v']).argv).toEqual(['--version']);
    expect(both(['-v=2']).argv).toEqual(['--log-level', 'info']);
    expect(both(['-v=6']).applied[0]).toBe('-v 6 (example/anchor v1) → --log-level trace');
    expect(() => both(['-v=x'])).toThrow(/-v: "x" is not a boolean/);
  });

  it("applies an anchor's own defaults when started as it (its binary, or its flags), below everything else", () => {
    const anchored: CompatLayer = {
      ...layer,
      binaries: ['anchor-plugin'],
      asAnchor: (to) => {
        to.flag('metrics-address', ':8080');
        to.setConfig(['ids'], 'anchor');
      },
    };
    const start = (argv: readonly string[], invokedAs?: string, env: Record<string, string> = {}) =>
      applyCompat({
        layers: [anchored],
        argv,
        env,
        ownFlag: (name) => (name === 'metrics-address' || name === 'config' ? true : undefined),
        ownTakesValue: () => true,
        ...(invokedAs !== undefined ? { invokedAs } : {}),
      });
    // Our own command line: none of it.
    expect(start(['serve', '--config', '/a'])).toMatchObject({ serveArgv: [], patches: [], startedAs: [] });
    expect(start(['serve'], 'other-plugin')).toMatchObject({ serveArgv: [], startedAs: [] });
    // Invoked by its binary, or one of its flags given: its defaults, patches first so that flags win.
    const byBinary = start(['serve'], 'anchor-plugin');
    expect(byBinary).toMatchObject({
      serveArgv: ['--metrics-address', ':8080'],
      patches: [{ path: ['ids'], value: 'anchor', source: 'started as example/anchor v1' }],
      startedAs: ['example/anchor v1'],
    });
    const byFlag = start(['--shared-dev-num', '2']);
    expect(byFlag.patches.map((p) => p.source)).toEqual(['started as example/anchor v1', '--shared-dev-num']);
    // Our explicit flag wins over the anchor's default.
    expect(start(['--metrics-address', ':9100', '-use-cdi']).serveArgv).toEqual([]);
  });

  it('collects a repeatable flag into one list that replaces the file’s', () => {
    const result = both(['-device', 'a', '--device=b', '-device', 'c']);
    expect(result.patches).toEqual([
      { path: ['devices'], value: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], source: '-device' },
    ]);
    expect(applyConfigPatches({ devices: [{ name: 'file' }] }, result.patches)).toEqual({
      devices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
    });
  });
});

describe('applyConfigPatches', () => {
  it('sets keys in a copy, creating objects and arrays on the way', () => {
    const input = { sharing: { replicas: 1 }, keep: true };
    const out = applyConfigPatches(input, [
      { path: ['sharing', 'replicas'], value: 4, source: 'a' },
      { path: ['resources', 0, 'name'], value: 'x', source: 'b' },
    ]);
    expect(out).toEqual({ sharing: { replicas: 4 }, keep: true, resources: [{ name: 'x' }] });
    expect(input.sharing.replicas).toBe(1);
    expect(applyConfigPatches(null, [{ path: ['a'], value: 1, source: 'c' }])).toEqual({ a: 1 });
  });
});
