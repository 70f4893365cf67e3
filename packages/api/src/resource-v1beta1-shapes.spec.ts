import {
  deviceRequestFromV1beta1,
  deviceRequestToV1beta1,
  sliceDeviceFromV1beta1,
  sliceDeviceToV1beta1,
} from './resource-v1beta1-shapes';

describe('resource.k8s.io/v1beta1 shapes', () => {
  const v1beta1Request = {
    name: 'gpu',
    deviceClassName: 'gpu.kdp.dev',
    selectors: [{ cel: { expression: 'device.driver == "gpu.kdp.dev"' } }],
    allocationMode: 'ExactCount',
    count: 2,
    adminAccess: false,
    tolerations: [{ key: 'k', operator: 'Exists' }],
    capacity: { requests: { memory: '1Gi' } },
  };
  const { name, ...exactly } = v1beta1Request;
  const v1Request = { name, exactly };

  it('moves every exact-request field into `exactly` and back', () => {
    expect(deviceRequestFromV1beta1(v1beta1Request)).toEqual(v1Request);
    expect(deviceRequestToV1beta1(v1Request)).toEqual(v1beta1Request);
  });

  it('leaves a firstAvailable request, one already in v1 shape, and non-objects alone', () => {
    const prioritized = { name: 'p', firstAvailable: [{ name: 'a', deviceClassName: 'c' }] };
    expect(deviceRequestFromV1beta1(prioritized)).toBe(prioritized);
    expect(deviceRequestFromV1beta1(v1Request)).toBe(v1Request);
    expect(deviceRequestToV1beta1(prioritized)).toBe(prioritized);
    expect(deviceRequestFromV1beta1(null)).toBeNull();
    expect(deviceRequestToV1beta1('x')).toBe('x');
  });

  it('wraps a slice device in `basic` and unwraps it', () => {
    const device = {
      name: 'gpu-0',
      attributes: { model: { string: 'h100' } },
      capacity: { memory: { value: '80Gi' } },
    };
    const wrapped = sliceDeviceToV1beta1(device);
    expect(wrapped).toEqual({
      name: 'gpu-0',
      basic: { attributes: device.attributes, capacity: device.capacity },
    });
    expect(sliceDeviceFromV1beta1(wrapped)).toEqual(device);
    expect(sliceDeviceFromV1beta1(device)).toBe(device);
  });
});
