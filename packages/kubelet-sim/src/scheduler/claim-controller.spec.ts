import { createObjectStore, type KubeObject } from '../api-server/object-store';
import { generatedClaimPrefix, syncClaimController } from './claim-controller';
import type { ResourceClaim } from './dra-types';

const obj = <T>(o: T): KubeObject => o as unknown as KubeObject;

describe('generatedClaimPrefix', () => {
  it('is <pod>-<claim>- up to 57 characters, then both parts shortened proportionally', () => {
    expect(generatedClaimPrefix('train', 'gpu')).toBe('train-gpu-');
    const pod = 'p'.repeat(60);
    const claim = 'c'.repeat(20);
    // 82 characters: the pod keeps 60 * 57 / 82 = 41, the claim 20 * 57 / 82 = 13, joined by one '-'.
    expect(generatedClaimPrefix(pod, claim)).toBe(`${'p'.repeat(41)}-${'c'.repeat(13)}`);
  });
});

describe('syncClaimController', () => {
  it('creates each template claim once, and deletes it when its pod has finished and holds nothing', () => {
    const store = createObjectStore();
    store.create(
      'resourceclaimtemplates',
      obj({
        metadata: { name: 't', namespace: 'ns' },
        spec: { spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } } },
      }),
      'ns',
    );
    store.create(
      'pods',
      obj({
        metadata: { name: 'p', namespace: 'ns' },
        spec: {
          containers: [{ name: 'c', image: 'x' }],
          resourceClaims: [
            { name: 'a', resourceClaimTemplateName: 't' },
            { name: 'b', resourceClaimTemplateName: 't' },
          ],
        },
      }),
      'ns',
    );
    syncClaimController(store);
    syncClaimController(store);
    const claims = store.list('resourceclaims').items as unknown as ResourceClaim[];
    expect(
      claims.map((c) => c.metadata.annotations?.['resource.kubernetes.io/pod-claim-name']).sort(),
    ).toEqual(['a', 'b']);
    expect(claims[0]?.spec).toEqual({
      devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] },
    });
    const statuses = (store.get('pods', 'p', 'ns')['status'] as { resourceClaimStatuses: object[] })
      .resourceClaimStatuses;
    expect(statuses).toHaveLength(2);
    store.update('pods', obj({ ...store.get('pods', 'p', 'ns'), status: { phase: 'Succeeded' } }), {
      namespace: 'ns',
      subresource: 'status',
    });
    syncClaimController(store);
    expect(store.list('resourceclaims').items).toEqual([]);
  });

  it('deallocates a claim whose pod went away, dropping the drivers’ device status with the allocation', () => {
    const store = createObjectStore();
    store.create(
      'resourceclaims',
      obj({
        metadata: { name: 'c', namespace: 'ns' },
        spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } },
      }),
      'ns',
    );
    const device = { driver: 'd.example.com', pool: 'p', device: 'dev-0' };
    store.update(
      'resourceclaims',
      obj({
        ...store.get('resourceclaims', 'c', 'ns'),
        status: {
          allocation: { devices: { results: [{ request: 'r', ...device }] } },
          reservedFor: [{ resource: 'pods', name: 'gone', uid: 'u-1' }],
          devices: [{ ...device, networkData: { interfaceName: 'eth1' } }],
        },
      }),
      { namespace: 'ns', subresource: 'status' },
    );
    syncClaimController(store);
    expect(store.get('resourceclaims', 'c', 'ns')['status']).toEqual({});
  });
});
