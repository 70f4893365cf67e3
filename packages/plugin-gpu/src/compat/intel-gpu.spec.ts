import { isRefused, type CompatLayer } from '@kdp/core/plugin';
import { intelGpuCompat } from './intel-gpu';

/** What one anchor option does to a recording target: our flags and configuration keys. */
function applyOption(layer: CompatLayer, name: string, value: string) {
  const option = layer.flags?.[name];
  if (option === undefined) throw new Error(`no flag -${name}`);
  if (isRefused(option)) throw new Error(`refused: ${option.refuse}`);
  const flags: Record<string, string | undefined> = {};
  const config: Array<[string, unknown]> = [];
  option.apply(value, {
    flag: (flag, flagValue) => void (flags[flag] = flagValue),
    setConfig: (path, configValue) => void config.push([path.join('.'), configValue]),
    appendConfig: (path, configValue) => void config.push([path.join('.'), configValue]),
  });
  return { flags, config };
}

const apply = (name: string, value: string) => applyOption(intelGpuCompat, name, value);
const nothing = { flags: {}, config: [] };

describe('intelGpuCompat (intel-gpu-plugin v0.36 flags)', () => {
  it('declares every flag of cmd/gpu_plugin and klog, none refused outright', () => {
    const gpuPluginFlags = [
      'prefix',
      'enable-monitoring',
      'monitoring-mode',
      'health-management',
      'xpumd-endpoint',
      'bypath',
      'wsl',
      'shared-dev-num',
      'temp-limit',
      'gpu-temp-limit',
      'memory-temp-limit',
      'allocation-policy',
      'allow-ids',
      'deny-ids',
    ];
    const flags = intelGpuCompat.flags ?? {};
    expect(gpuPluginFlags.filter((name) => flags[name] === undefined)).toEqual([]);
    expect(flags['v']).toBeDefined();
    // Each of Intel's own flags accepts its default value: an explicit default never stops a DaemonSet.
    expect(gpuPluginFlags.filter((name) => isRefused(flags[name] ?? { kind: 'value', refuse: '' }))).toEqual(
      [],
    );
    expect(intelGpuCompat.env).toBeUndefined();
    expect(intelGpuCompat.defaultConfigPaths).toBeUndefined();
  });

  it('-shared-dev-num N: N replicas of the Intel resources only, never renamed .shared', () => {
    expect(apply('shared-dev-num', '10').config).toEqual([
      [
        'sharing.resources',
        [
          { name: 'gpu.intel.com/i915', replicas: 10, rename: 'gpu.intel.com/i915' },
          { name: 'gpu.intel.com/xe', replicas: 10, rename: 'gpu.intel.com/xe' },
        ],
      ],
    ]);
    expect(() => apply('shared-dev-num', '0')).toThrow('must be greater than zero');
    expect(() => apply('shared-dev-num', '65')).toThrow('65 is more than kdp shares one GPU (64)');
    expect(() => apply('shared-dev-num', 'ten')).toThrow('"ten" is not an integer');
  });

  it('-prefix P: sysfs and devfs under P, as Intel reads them', () => {
    expect(apply('prefix', '/host').flags).toEqual({ 'sysfs-root': '/host/sys', 'dev-root': '/host/dev' });
    expect(apply('prefix', '')).toEqual(nothing);
    expect(() => apply('prefix', 'host')).toThrow('"host" is not an absolute path');
  });

  it('-allocation-policy: none and balanced are how kdp spreads replicas; packed is refused', () => {
    expect(apply('allocation-policy', 'none')).toEqual(nothing);
    expect(apply('allocation-policy', 'balanced')).toEqual(nothing);
    expect(() => apply('allocation-policy', 'packed')).toThrow('packed is not supported: kdp spreads');
    expect(() => apply('allocation-policy', 'fair')).toThrow('"fair" is not one of balanced, packed, none');
  });

  it('-bypath: single is what kdp mounts; none and all are refused, anything else is an error', () => {
    expect(apply('bypath', 'single')).toEqual(nothing);
    expect(() => apply('bypath', 'all')).toThrow(
      "all is not supported: kdp always mounts each allocated GPU's",
    );
    expect(() => apply('bypath', 'none')).toThrow('none is not supported');
    expect(() => apply('bypath', 'some')).toThrow('"some" is not one of single, none, all');
  });

  it.each([
    ['health-management', 'does not query the Level-Zero sidecar'],
    ['wsl', 'does not serve WSL GPUs'],
  ])('-%s: false is the default, true is refused saying what kdp does', (name, reason) => {
    expect(apply(name, 'false')).toEqual(nothing);
    expect(() => apply(name, 'true')).toThrow(reason);
  });

  it.each([
    ['xpumd-endpoint', '/run/xpumd/intelxpuinfo.sock', 'does not query xpumd'],
    ['allow-ids', '0x56a6,0x56a5', 'advertises every Intel GPU bound to i915 or xe'],
    ['deny-ids', '0x56c0', 'advertises every Intel GPU bound to i915 or xe'],
  ])('-%s: empty is the default, a value is refused', (name, value, reason) => {
    expect(apply(name, '')).toEqual(nothing);
    expect(() => apply(name, value)).toThrow(`${JSON.stringify(value)} is not supported: kdp ${reason}`);
  });

  it('-enable-monitoring and -monitoring-mode set intel.monitoring and intel.monitoringMode', () => {
    expect(apply('enable-monitoring', 'true').config).toEqual([['intel.monitoring', true]]);
    expect(apply('enable-monitoring', 'false').config).toEqual([['intel.monitoring', false]]);
    expect(apply('monitoring-mode', 'split').config).toEqual([['intel.monitoringMode', 'split']]);
    expect(() => apply('monitoring-mode', 'both')).toThrow('"both" is not one of split, single');
  });

  it('checks the values of the options that tune refused ones as Intel does', () => {
    expect(apply('temp-limit', '95')).toEqual(nothing);
    expect(() => apply('gpu-temp-limit', 'hot')).toThrow('"hot" is not an integer');
  });
});
