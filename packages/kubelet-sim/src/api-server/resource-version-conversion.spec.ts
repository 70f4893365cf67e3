import { fromStorageVersion, toStorageVersion } from './resource-version-conversion';

const v1Slice = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: 's' },
  spec: {
    driver: 'gpu.example.com',
    nodeName: 'n',
    pool: { name: 'n', generation: 1, resourceSliceCount: 1 },
    devices: [
      { name: 'gpu-0', attributes: { model: { string: 'x' } }, capacity: { memory: { value: '8Gi' } } },
    ],
  },
};

const v1Claim = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name: 'c', namespace: 'default' },
  spec: {
    devices: {
      requests: [
        {
          name: 'one',
          exactly: { deviceClassName: 'gpu', count: 2, allocationMode: 'ExactCount', adminAccess: true },
        },
        { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu' }] },
      ],
    },
  },
};

describe('resource.k8s.io version conversion', () => {
  it('moves device fields under basic for v1beta1 and back', () => {
    const beta1 = fromStorageVersion('resourceslices', v1Slice, 'v1beta1');
    expect(beta1.apiVersion).toBe('resource.k8s.io/v1beta1');
    expect((beta1['spec'] as { devices: unknown[] }).devices).toEqual([
      {
        name: 'gpu-0',
        basic: { attributes: { model: { string: 'x' } }, capacity: { memory: { value: '8Gi' } } },
      },
    ]);
    expect(toStorageVersion('resourceslices', beta1, 'v1beta1')).toEqual(v1Slice);
  });

  it('lifts exactly onto the request for v1beta1 and leaves firstAvailable alone', () => {
    const beta1 = fromStorageVersion('resourceclaims', v1Claim, 'v1beta1');
    expect((beta1['spec'] as { devices: { requests: unknown[] } }).devices.requests).toEqual([
      { name: 'one', deviceClassName: 'gpu', count: 2, allocationMode: 'ExactCount', adminAccess: true },
      { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu' }] },
    ]);
    expect(toStorageVersion('resourceclaims', beta1, 'v1beta1')).toEqual(v1Claim);
  });

  it('converts the claim spec inside a template', () => {
    const template = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't' },
      spec: { spec: v1Claim.spec },
    };
    const beta1 = fromStorageVersion('resourceclaimtemplates', template, 'v1beta1');
    expect(JSON.stringify(beta1)).not.toContain('exactly');
    expect(toStorageVersion('resourceclaimtemplates', beta1, 'v1beta1')).toEqual(template);
  });

  it('changes only apiVersion for v1beta2, and nothing for v1', () => {
    const beta2 = fromStorageVersion('resourceclaims', v1Claim, 'v1beta2');
    expect(beta2).toEqual({ ...v1Claim, apiVersion: 'resource.k8s.io/v1beta2' });
    expect(toStorageVersion('resourceclaims', beta2, 'v1beta2')).toEqual(v1Claim);
    expect(fromStorageVersion('resourceclaims', v1Claim, 'v1')).toBe(v1Claim);
  });
});
