import { deviceKey, toApiDevice } from './pool-slices';
import { SliceVersionError, toVersionSlice } from './slice-version';
import type { SliceObject } from './slice-object';

const shared = toApiDevice({
  name: 'gpu-0',
  allowMultipleAllocations: true,
  capacity: {
    memory: { value: '80Gi', requestPolicy: { default: '20Gi', validRange: { min: '1Mi', step: '1Mi' } } },
    timeSlices: { value: 4, requestPolicy: { default: 1, validValues: [1, 2, 4] } },
    cores: 8,
  },
});

describe('shared capacity in ResourceSlices (KEP 5075)', () => {
  it('writes allowMultipleAllocations and each capacity with its request policy', () => {
    expect(shared).toEqual({
      name: 'gpu-0',
      allowMultipleAllocations: true,
      capacity: {
        cores: { value: '8' },
        memory: {
          value: '80Gi',
          requestPolicy: { default: '20Gi', validRange: { min: '1Mi', step: '1Mi' } },
        },
        timeSlices: { value: '4', requestPolicy: { default: '1', validValues: ['1', '2', '4'] } },
      },
    });
    expect(toApiDevice({ name: 'gpu-1', allowMultipleAllocations: false })).toEqual({ name: 'gpu-1' });
  });

  it('compares request policies by the value of their quantities, as the API server gives them back', () => {
    const stored = {
      ...shared,
      capacity: {
        ...shared.capacity,
        memory: {
          value: '85899345920',
          requestPolicy: { default: '20480Mi', validRange: { min: '1Mi', step: '1024Ki' } },
        },
      },
    };
    expect(deviceKey(stored)).toBe(deviceKey(shared));
    const changed = {
      ...shared,
      capacity: { ...shared.capacity, memory: { value: '80Gi', requestPolicy: { default: '40Gi' } } },
    };
    expect(deviceKey(changed)).not.toBe(deviceKey(shared));
  });

  it('refuses shared devices for API versions before v1, naming the field', () => {
    const slice: SliceObject = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: { driver: 'gpu.kdp.dev', nodeName: 'n', pool: { name: 'p' }, devices: [shared] },
    };
    expect(toVersionSlice(slice, 'v1').spec.devices).toEqual([shared]);
    for (const version of ['v1beta1', 'v1beta2'] as const)
      expect(() => toVersionSlice(slice, version)).toThrow(SliceVersionError);
    expect(() => toVersionSlice(slice, 'v1beta2')).toThrow(/device gpu-0: allowMultipleAllocations/);
    const { allowMultipleAllocations: _flag, ...withoutFlag } = shared;
    const policySlice = { ...slice, spec: { ...slice.spec, devices: [withoutFlag] } };
    expect(() => toVersionSlice(policySlice, 'v1beta2')).toThrow(
      /device gpu-0: capacity memory requestPolicy/,
    );
  });
});
