import { isConfigError, parseConfigText } from '@kdp/core';
import { gpuConfigSchema } from './config';

describe('gpuConfigSchema', () => {
  const failure = (text: string): string => {
    try {
      parseConfigText('gpu.yaml', text, gpuConfigSchema);
    } catch (error) {
      expect(isConfigError(error)).toBe(true);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('gives every default for an empty file', () => {
    expect(parseConfigText('gpu.yaml', '{}', gpuConfigSchema).value).toEqual({
      resourceNames: {
        nvidia: 'nvidia.com/gpu',
        nvidiaMig: 'nvidia.com/gpu',
        amd: 'amd.com/gpu',
        i915: 'gpu.intel.com/i915',
        xe: 'gpu.intel.com/xe',
      },
      splitByModel: false,
      modelResourceNames: {},
      nvidia: {
        deviceListStrategy: ['envvar'],
        passDeviceSpecs: false,
        migStrategy: 'none',
        deviceIDStrategy: 'uuid',
        driverRoot: '/',
        containerDriverRoot: '/driver-root',
      },
      intel: { monitoring: false, monitoringMode: 'single' },
      amd: { resourceNamingStrategy: 'single' },
      sharing: { replicas: 1, failRequestsGreaterThanOne: false, renameByDefault: false, resources: [] },
      health: { nvml: 'auto', ignoredXids: [13, 31, 43, 45, 68, 109], xidHoldSeconds: 300 },
    });
  });

  it('reads a full example, filling the defaults it leaves out', () => {
    const text = [
      'resourceNames: { nvidia: example.com/gpu, amd: example.com/amd }',
      'splitByModel: true',
      'modelResourceNames: { "NVIDIA H100 80GB HBM3": nvidia.com/h100 }',
      'nvidia: { deviceListStrategy: [envvar, cdi], passDeviceSpecs: true, migStrategy: mixed, deviceIDStrategy: index, driverRoot: /run/nvidia/driver, devRoot: / }',
      'intel: { monitoring: true, monitoringMode: split }',
      'amd: { resourceNamingStrategy: mixed }',
      'sharing:',
      '  replicas: 4',
      '  failRequestsGreaterThanOne: true',
      '  renameByDefault: true',
      '  resources: [{ name: nvidia.com/gpu, replicas: 2, rename: nvidia.com/gpu.half, devices: [0, "GPU-1"] }]',
      'health: { nvml: "off", ignoredXids: [13], xidHoldSeconds: 0 }',
    ].join('\n');
    expect(parseConfigText('gpu.yaml', text, gpuConfigSchema).value).toEqual({
      resourceNames: {
        nvidia: 'example.com/gpu',
        nvidiaMig: 'nvidia.com/gpu',
        amd: 'example.com/amd',
        i915: 'gpu.intel.com/i915',
        xe: 'gpu.intel.com/xe',
      },
      splitByModel: true,
      modelResourceNames: { 'NVIDIA H100 80GB HBM3': 'nvidia.com/h100' },
      nvidia: {
        deviceListStrategy: ['envvar', 'cdi'],
        passDeviceSpecs: true,
        migStrategy: 'mixed',
        deviceIDStrategy: 'index',
        driverRoot: '/run/nvidia/driver',
        devRoot: '/',
        containerDriverRoot: '/driver-root',
      },
      intel: { monitoring: true, monitoringMode: 'split' },
      amd: { resourceNamingStrategy: 'mixed' },
      sharing: {
        replicas: 4,
        failRequestsGreaterThanOne: true,
        renameByDefault: true,
        resources: [
          { name: 'nvidia.com/gpu', replicas: 2, rename: 'nvidia.com/gpu.half', devices: [0, 'GPU-1'] },
        ],
      },
      health: { nvml: 'off', ignoredXids: [13], xidHoldSeconds: 0 },
    });
  });

  it.each([
    ['resourceNames: { nvidia: "no slash" }', 'resourceNames.nvidia: not a valid extended resource name'],
    [
      'modelResourceNames: { A100: "bad name" }',
      'modelResourceNames.A100: not a valid extended resource name',
    ],
    ['nvidia: { migStrategy: both }', 'nvidia.migStrategy: '],
    ['nvidia: { driverRoot: run/nvidia/driver }', 'nvidia.driverRoot: must be an absolute, normalised path'],
    ['nvidia: { devRoot: /run/../etc }', 'nvidia.devRoot: must be an absolute, normalised path'],
    ['nvidia: { deviceListStrategy: [] }', 'nvidia.deviceListStrategy: '],
    ['amd: { resourceNamingStrategy: split }', 'amd.resourceNamingStrategy: '],
    ['sharing: { replicas: 0 }', 'sharing.replicas: '],
    ['sharing: { replicas: 65 }', 'sharing.replicas: '],
    [
      'sharing: { resources: [{ name: nvidia.com/gpu, replicas: 2, devices: [] }] }',
      'sharing.resources[0].devices: ',
    ],
    ['health: { xidHoldSeconds: -1 }', 'health.xidHoldSeconds: '],
    ['health: { nvml: on }', 'health.nvml: '],
    ['splitbymodel: true', 'splitbymodel'],
  ])('refuses %s, naming the field (exit 2)', (text, message) => {
    expect(failure(text)).toContain(`gpu.yaml: ${message}`);
  });
});
