import { isRefused, type CompatTarget } from '@kdp/core/plugin';
import { gpuConfigSchema } from '../config';
import { nvidiaCompat } from './nvidia';

// The flags (with aliases) and variables of cmd/nvidia-device-plugin/main.go in NVIDIA/k8s-device-plugin v0.20.0,
// plus the two variables internal/rm/health.go reads, re-typed.
const NVIDIA_FLAGS = [
  'mig-strategy',
  'fail-on-init-error',
  'driver-root',
  'nvidia-driver-root',
  'dev-root',
  'nvidia-dev-root',
  'pass-device-specs',
  'device-list-strategy',
  'device-id-strategy',
  'gdrcopy-enabled',
  'gds-enabled',
  'mofed-enabled',
  'cdi-annotation-prefix',
  'nvidia-cdi-hook-path',
  'nvidia-ctk-path',
  'driver-root-ctr-path',
  'container-driver-root',
  'mps-root',
  'shared-devices-allocation-policy',
  'device-discovery-strategy',
  'imex-channel-ids',
  'imex-required',
  'kubelet-socket',
  'config-file',
  'cdi-feature-flags',
  'cdi-disable-hooks',
];
const NVIDIA_ENV = [
  'MIG_STRATEGY',
  'FAIL_ON_INIT_ERROR',
  'NVIDIA_DRIVER_ROOT',
  'NVIDIA_DEV_ROOT',
  'PASS_DEVICE_SPECS',
  'DEVICE_LIST_STRATEGY',
  'DEVICE_ID_STRATEGY',
  'GDRCOPY_ENABLED',
  'GDS_ENABLED',
  'MOFED_ENABLED',
  'CDI_ANNOTATION_PREFIX',
  'NVIDIA_CDI_HOOK_PATH',
  'NVIDIA_CTK_PATH',
  'DRIVER_ROOT_CTR_PATH',
  'CONTAINER_DRIVER_ROOT',
  'MPS_ROOT',
  'SHARED_DEVICES_ALLOCATION_POLICY',
  'DEVICE_DISCOVERY_STRATEGY',
  'IMEX_CHANNEL_IDS',
  'IMEX_REQUIRED',
  'KUBELET_SOCKET',
  'CONFIG_FILE',
  'CDI_FEATURE_FLAGS',
  'CDI_DISABLE_HOOKS',
  'DP_DISABLE_HEALTHCHECKS',
  'DP_ENABLE_HEALTHCHECKS',
];

/** Applies an anchor option by name; what it set. */
function applyOption(kind: 'flags' | 'env', name: string, value: string) {
  const option = nvidiaCompat[kind]?.[name];
  if (option === undefined || isRefused(option)) throw new Error(`${name} is not an accepted option`);
  const flags: [string, string | undefined][] = [];
  const config: [string, unknown][] = [];
  const target: CompatTarget = {
    flag: (flag, flagValue) => void flags.push([flag, flagValue]),
    setConfig: (path, configValue) => void config.push([path.join('.'), configValue]),
    appendConfig: (path, configValue) => void config.push([path.join('.'), configValue]),
  };
  option.apply(value, target);
  return { flags, config };
}

/** Converts a parsed document (the YAML examples as objects), which must be detected as NVIDIA's. */
const convert = (doc: unknown) => {
  expect(nvidiaCompat.configFormat?.detect(doc)).toBe(true);
  const result = nvidiaCompat.configFormat?.convert(doc);
  if (result === undefined) throw new Error('no configFormat');
  return result;
};

describe('nvidiaCompat', () => {
  it('declares every flag and variable of NVIDIA v0.20, each described or refused with what kdp does', () => {
    expect(Object.keys(nvidiaCompat.flags ?? {}).sort()).toEqual([...NVIDIA_FLAGS].sort());
    expect(Object.keys(nvidiaCompat.env ?? {}).sort()).toEqual([...NVIDIA_ENV].sort());
    for (const option of [
      ...Object.values(nvidiaCompat.flags ?? {}),
      ...Object.values(nvidiaCompat.env ?? {}),
    ])
      expect((isRefused(option) ? option.refuse : option.description).length).toBeGreaterThan(20);
  });

  it('maps settings onto our nvidia and health keys and our flags', () => {
    expect(applyOption('env', 'MIG_STRATEGY', 'mixed').config).toEqual([['nvidia.migStrategy', 'mixed']]);
    expect(applyOption('flags', 'device-list-strategy', 'envvar,cdi-cri').config).toEqual([
      ['nvidia.deviceListStrategy', ['envvar', 'cdi']],
    ]);
    expect(applyOption('env', 'PASS_DEVICE_SPECS', 'true').config).toEqual([
      ['nvidia.passDeviceSpecs', true],
    ]);
    expect(applyOption('env', 'DEVICE_ID_STRATEGY', 'index').config).toEqual([
      ['nvidia.deviceIDStrategy', 'index'],
    ]);
    expect(applyOption('env', 'CONFIG_FILE', '/config/config.yaml').flags).toEqual([
      ['config', '/config/config.yaml'],
    ]);
    expect(
      applyOption('flags', 'kubelet-socket', '/var/lib/kubelet/device-plugins/kubelet.sock').flags,
    ).toEqual([['device-plugin-dir', '/var/lib/kubelet/device-plugins']]);
    expect(applyOption('env', 'DP_DISABLE_HEALTHCHECKS', 'xids').config).toEqual([['health.nvml', 'off']]);
    expect(applyOption('env', 'DP_DISABLE_HEALTHCHECKS', '48, 79').config).toEqual([
      ['health.ignoredXids', [13, 31, 43, 45, 68, 109, 48, 79]],
    ]);
    // The driver roots: set as config keys; --dev-root follows only a mounted root that has a dev/ (none here).
    expect(applyOption('env', 'NVIDIA_DRIVER_ROOT', '/run/nvidia/driver/')).toEqual({
      flags: [],
      config: [['nvidia.driverRoot', '/run/nvidia/driver/']],
    });
    expect(applyOption('env', 'NVIDIA_DEV_ROOT', '/').config).toEqual([['nvidia.devRoot', '/']]);
    expect(applyOption('env', 'NVIDIA_DEV_ROOT', '')).toEqual({ flags: [], config: [] });
    // The values that are what kdp does anyway change nothing.
    for (const [name, value] of [
      ['MPS_ROOT', '/run/nvidia/mps'],
      ['GDS_ENABLED', 'false'],
      ['SHARED_DEVICES_ALLOCATION_POLICY', 'distributed'],
      ['CDI_DISABLE_HOOKS', 'all'],
    ] as const)
      expect(applyOption('env', name, value)).toEqual({ flags: [], config: [] });
  });

  it('refuses values kdp does not implement, saying what it does instead', () => {
    const refusals: [string, string, RegExp][] = [
      ['MIG_STRATEGY', 'auto', /not one of none, single, mixed/],
      [
        'DEVICE_LIST_STRATEGY',
        'envvar,volume-mounts',
        /volume-mounts is not supported: kdp passes NVIDIA_VISIBLE/,
      ],
      ['DEVICE_LIST_STRATEGY', 'cdi-annotations', /CRI CDIDevices field/],
      ['NVIDIA_DRIVER_ROOT', 'run/nvidia/driver', /not an absolute path/],
      ['GDRCOPY_ENABLED', 'true', /NVIDIA_GDRCOPY=enabled/],
      ['SHARED_DEVICES_ALLOCATION_POLICY', 'packed', /packed is not implemented/],
      ['DEVICE_DISCOVERY_STRATEGY', 'tegra', /Tegra/],
      ['IMEX_CHANNEL_IDS', '0', /IMEX/],
      ['KUBELET_SOCKET', '/run/kubelet.socket', /kubelet.sock/],
      ['DP_DISABLE_HEALTHCHECKS', 'lots', /not an Xid number/],
    ];
    for (const [name, value, message] of refusals)
      expect(() => applyOption('env', name, value)).toThrow(message);
    const enable = nvidiaCompat.env?.['DP_ENABLE_HEALTHCHECKS'];
    expect(enable && isRefused(enable) ? enable.refuse : '').toContain('health.ignoredXids');
  });

  describe('config file (version: v1)', () => {
    it('detects NVIDIA documents, not ours', () => {
      const detect = (doc: unknown) => nvidiaCompat.configFormat?.detect(doc);
      expect(detect({ version: 'v1' })).toBe(true);
      expect(detect({ sharing: { timeSlicing: { resources: [] } } })).toBe(true);
      expect(detect({ sharing: { replicas: 2 }, nvidia: { migStrategy: 'mixed' } })).toBe(false);
      expect(detect('version: v1')).toBe(false);
    });

    it("converts the README's configuration file example; migStrategy is set explicitly", () => {
      const result = convert({
        version: 'v1',
        flags: {
          migStrategy: 'none',
          failOnInitError: true,
          nvidiaDriverRoot: '/',
          plugin: { passDeviceSpecs: false, deviceListStrategy: 'envvar', deviceIDStrategy: 'uuid' },
        },
      });
      expect(result).toEqual({
        config: {
          nvidia: {
            migStrategy: 'none',
            driverRoot: '/',
            passDeviceSpecs: false,
            deviceListStrategy: ['envvar'],
            deviceIDStrategy: 'uuid',
          },
        },
        errors: [],
        warnings: [],
      });
      expect(convert({ version: 'v1' }).config).toEqual({ nvidia: { migStrategy: 'none' } });
      expect(() => gpuConfigSchema.parse(result.config)).not.toThrow();
    });

    it('converts sharing.timeSlicing: names under nvidia.com/, renameByDefault, failRequestsGreaterThanOne', () => {
      const result = convert({
        version: 'v1',
        flags: { plugin: { deviceListStrategy: ['envvar', 'cdi-cri'] } },
        sharing: {
          timeSlicing: {
            renameByDefault: true,
            failRequestsGreaterThanOne: true,
            resources: [
              { name: 'nvidia.com/gpu', replicas: 10 },
              { name: 'mig-1g.10gb', replicas: 2 },
            ],
          },
        },
      });
      expect(result.errors).toEqual([]);
      expect(result.config).toEqual({
        nvidia: { migStrategy: 'none', deviceListStrategy: ['envvar', 'cdi'] },
        sharing: {
          renameByDefault: true,
          failRequestsGreaterThanOne: true,
          resources: [
            { name: 'nvidia.com/gpu', replicas: 10 },
            { name: 'nvidia.com/mig-1g.10gb', replicas: 2 },
          ],
        },
      });
      expect(() => gpuConfigSchema.parse(result.config)).not.toThrow();
    });

    it("warns about what NVIDIA's plugin ignores too: rename, devices, resources, GFD keys, unknown keys", () => {
      const result = convert({
        version: 'v1',
        flags: { useNodeFeatureAPI: true, gfd: { oneshot: true } },
        resources: { gpus: [{ pattern: '*', name: 'gpu' }] },
        sharing: {
          timeSlicing: {
            resources: [
              {
                name: 'nvidia.com/gpu',
                rename: 'nvidia.com/gpu-ts',
                devices: [0, '1:0', 'GPU-8d042338-e67f-9c48-92b4-5b55c7e5133c'],
                replicas: 4,
              },
            ],
          },
        },
        colour: 'blue',
      });
      expect(result.errors).toEqual([]);
      expect(result.warnings?.map((w) => w.path)).toEqual([
        'flags.useNodeFeatureAPI',
        'flags.gfd',
        'resources',
        'sharing.timeSlicing.resources[0].rename',
        'sharing.timeSlicing.resources[0].devices',
        'colour',
      ]);
      expect(result.warnings?.[3]?.message).toContain("NVIDIA's plugin v0.20 ignores it");
      expect(result.config).toEqual({
        nvidia: { migStrategy: 'none' },
        sharing: { resources: [{ name: 'nvidia.com/gpu', replicas: 4 }] },
      });
    });

    it('refuses MPS, bad values and settings kdp does not implement, naming the field', () => {
      const result = convert({
        version: 'v2',
        flags: {
          migStrategy: 'auto',
          gdsEnabled: true,
          plugin: { deviceListStrategy: 'volume-mounts', passDeviceSpecs: 'yes' },
        },
        imex: { channelIDs: [0] },
        sharing: {
          mps: { resources: [{ name: 'nvidia.com/gpu', replicas: 2 }] },
          timeSlicing: {
            resources: [
              { name: 'example.com/gpu', replicas: 1 },
              { replicas: 3, devices: 'nope' },
            ],
          },
        },
      });
      expect(result.errors?.map((e) => e.path)).toEqual([
        'version',
        'flags.migStrategy',
        'flags.gdsEnabled',
        'flags.plugin.deviceListStrategy',
        'flags.plugin.passDeviceSpecs',
        'imex.channelIDs',
        'sharing.mps',
        'sharing.timeSlicing.resources[0].name',
        'sharing.timeSlicing.resources[0].replicas',
        'sharing.timeSlicing.resources[1].name',
        'sharing.timeSlicing.resources[1].devices',
      ]);
      expect(result.errors?.find((e) => e.path === 'sharing.mps')?.message).toContain(
        'no MPS control daemon',
      );
      expect(convert({ sharing: { timeSlicing: { renameByDefault: true } } }).errors).toEqual([
        {
          path: 'sharing.timeSlicing.resources',
          message: 'no resources specified (a list of {name, replicas})',
        },
      ]);
    });
  });
});
