import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRefused, type CompatTarget, type DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { createGpuPlugin } from '../plugin';
import { buildMi300xMachine, MI300X_GPUS } from '../testing/amd-machines';
import { rootFlags } from '../testing/fixture-devices';
import { rocmCompat } from './rocm';

// cmd/k8s-device-plugin/main.go of ROCm/k8s-device-plugin v1.31.0.10 (two flags), -driver_type of its
// gpu-virtualization branch, and the flags golang/glog v1.2.4 registers; re-typed.
const ROCM_FLAGS = ['pulse', 'resource_naming_strategy', 'driver_type'];
const GLOG_FLAGS = [
  'v',
  'vmodule',
  'log_backtrace_at',
  'logtostderr',
  'alsologtostderr',
  'stderrthreshold',
  'log_dir',
  'log_link',
  'logbuflevel',
];

/** Applies an accepted flag; what it set. */
function applyFlag(name: string, value: string) {
  const option = rocmCompat.flags?.[name];
  if (option === undefined || isRefused(option)) throw new Error(`${name} is not an accepted flag`);
  const set: [string, unknown][] = [];
  const target: CompatTarget = {
    flag: (flag, flagValue) => void set.push([`--${flag}`, flagValue]),
    setConfig: (path, configValue) => void set.push([path.join('.'), configValue]),
    appendConfig: (path, configValue) => void set.push([path.join('.'), configValue]),
  };
  option.apply(value, target);
  return set;
}

describe('rocmCompat', () => {
  it('declares every flag of ROCm’s plugin and of glog, each described or refused with what kdp does', () => {
    expect(Object.keys(rocmCompat.flags ?? {}).sort()).toEqual([...ROCM_FLAGS, ...GLOG_FLAGS].sort());
    expect(Object.keys(rocmCompat.env ?? {}).sort()).toEqual(['AMD_GPU_DEVICE_COUNT', 'CONFIG_FILE_PATH']);
    for (const option of [...Object.values(rocmCompat.flags ?? {}), ...Object.values(rocmCompat.env ?? {})])
      expect((isRefused(option) ? option.refuse : option.description).length).toBeGreaterThan(20);
    expect(rocmCompat.defaultConfigPaths).toBeUndefined();
    expect(rocmCompat.configFormat).toBeUndefined();
  });

  it('maps -resource_naming_strategy, -pulse, -driver_type container and -v onto ours', () => {
    expect(applyFlag('resource_naming_strategy', 'mixed')).toEqual([['amd.resourceNamingStrategy', 'mixed']]);
    expect(applyFlag('resource_naming_strategy', 'single')).toEqual([
      ['amd.resourceNamingStrategy', 'single'],
    ]);
    expect(applyFlag('pulse', '10')).toEqual([['--poll-interval', '10s']]);
    expect(applyFlag('driver_type', 'container')).toEqual([]);
    expect(applyFlag('v', '4')).toEqual([['--log-level', 'debug']]);
  });

  it('refuses what kdp does not do, saying what it does instead', () => {
    expect(() => applyFlag('resource_naming_strategy', 'Mixed')).toThrow('"Mixed" is not single or mixed');
    expect(() => applyFlag('pulse', '0')).toThrow(/health checks off/);
    expect(() => applyFlag('pulse', 'ten')).toThrow(/not an integer/);
    expect(() => applyFlag('driver_type', 'vf-passthrough')).toThrow(/sriov-device-plugin/);
    expect(() => applyFlag('driver_type', 'vm')).toThrow(/not container, vf-passthrough or pf-passthrough/);
  });

  it('accepts the variables ROCm documents and never reads, saying they have no effect', () => {
    for (const name of ['AMD_GPU_DEVICE_COUNT', 'CONFIG_FILE_PATH']) {
      const option = rocmCompat.env?.[name];
      expect(option && !isRefused(option) ? option.description : '').toMatch(/^no effect: .*never reads it/);
    }
  });

  describe('through the runtime (discover on an MI300X node in CPX/NPS4)', () => {
    let fixture: SysfsFixture;
    beforeAll(() => {
      fixture = buildMi300xMachine({ modes: { compute: 'CPX', memory: 'NPS4' } });
    }, 60_000);
    afterAll(() => fixture.remove());
    const plugin = { ...createGpuPlugin(), compat: [rocmCompat] };
    const discover = (args: string[], env: Record<string, string> = {}) =>
      runPluginCommand(plugin, ['discover', ...rootFlags(fixture), '--output', 'json', ...args], { env });

    it('-resource_naming_strategy=mixed advertises amd.com/cpx_nps4, as ROCm', async () => {
      const run = await discover(['-resource_naming_strategy=mixed']);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('-resource_naming_strategy mixed (ROCm/k8s-device-plugin v1.31.0.10)');
      const doc = JSON.parse(run.stdout) as DiscoverDocument & { config?: { amd?: unknown } };
      expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
        ['amd.com/cpx_nps4', 64],
      ]);
      expect(doc.resources[0]?.devices[0]?.id).toBe(MI300X_GPUS[0]);
      expect(doc.config?.amd).toEqual({ resourceNamingStrategy: 'mixed' });
    });

    it('a refused value or variable exits 2 naming it', async () => {
      const bad = await discover(['-driver_type', 'pf-passthrough']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/driver_type.*pf-passthrough is not supported/);
      const config = join(fixture.base, 'ours.json');
      writeFileSync(config, JSON.stringify({ amd: { resourceNamingStrategy: 'single' } }));
      const flagWins = await discover(['--config', config, '-resource_naming_strategy', 'mixed']);
      expect(JSON.parse(flagWins.stdout).resources[0].resourceName).toBe('amd.com/cpx_nps4');
    });

    // ROCm's docs/user-guide/configuration.md (v1.31.0.10), re-typed: its "Example deployment snippet" sets
    // CONFIG_FILE_PATH to the ConfigMap's file (`gpu: {device_count: 2}`), its table AMD_GPU_DEVICE_COUNT. ROCm's
    // plugin reads neither and advertises every GPU; so do we, and the log says they changed nothing.
    it('the documented CONFIG_FILE_PATH and AMD_GPU_DEVICE_COUNT start, advertise every GPU, logged as no effect', async () => {
      const config = join(fixture.base, 'etc-amdgpu-config.yaml');
      writeFileSync(config, 'gpu:\n  device_count: 2\n');
      const run = await discover([], { CONFIG_FILE_PATH: config, AMD_GPU_DEVICE_COUNT: '2' });
      expect(run.code).toBe(0);
      expect(
        (JSON.parse(run.stdout) as DiscoverDocument).resources.map((r) => [r.resourceName, r.devices.length]),
      ).toEqual([['amd.com/gpu', 64]]);
      for (const name of ['CONFIG_FILE_PATH', 'AMD_GPU_DEVICE_COUNT'])
        expect(run.stderr).toMatch(
          new RegExp(`environment variable ${name} .*nothing to change: no effect: .*never reads it`),
        );
    });
  });
});
