import { createKubeClient } from '@kdp/core';
import { createFakeResourceApi, type FakeResourceApi } from './resource-api-fake.fixture';
import { createResourceApiDiscovery } from './resource-api-discovery';

let api: FakeResourceApi;
afterEach(async () => api.close());

function discoveryOf(versions: string[], lines: string[] = []) {
  return createFakeResourceApi(versions).then((fake) => {
    api = fake;
    const log = (_fields: object, message: string): void => void lines.push(message);
    return createResourceApiDiscovery({
      client: createKubeClient({ access: { server: fake.url } }),
      purpose: 'ResourceSlices of gpu.kdp.dev',
      logger: { debug: log, info: log, warn: (f, m) => log(f, `WARN ${m}`), error: log },
    });
  });
}

describe('createResourceApiDiscovery', () => {
  it.each([
    [['v1', 'v1beta2', 'v1beta1'], 'v1'],
    [['v1beta1', 'v1beta2'], 'v1beta2'],
    [['v1beta1'], 'v1beta1'],
    [['v1alpha3', 'v1beta1'], 'v1beta1'],
  ])('chooses from %j: %s, discovering once', async (served, chosen) => {
    const lines: string[] = [];
    const discovery = await discoveryOf(served, lines);
    await expect(Promise.all([discovery.version(), discovery.version()])).resolves.toEqual([chosen, chosen]);
    await expect(discovery.version()).resolves.toBe(chosen);
    expect(api.requests).toEqual(['GET /apis/resource.k8s.io']);
    expect(lines).toEqual([`ResourceSlices of gpu.kdp.dev: resource.k8s.io/${chosen}`]);
  });

  it('rediscovers after a change of the API server and logs the new version as a warning', async () => {
    const lines: string[] = [];
    const discovery = await discoveryOf(['v1', 'v1beta1'], lines);
    await expect(discovery.version()).resolves.toBe('v1');
    api.versions = ['v1beta1'];
    await expect(discovery.rediscover()).resolves.toBe('v1beta1');
    await expect(discovery.version()).resolves.toBe('v1beta1');
    expect(lines).toEqual([
      'ResourceSlices of gpu.kdp.dev: resource.k8s.io/v1',
      'WARN ResourceSlices of gpu.kdp.dev: resource.k8s.io/v1 is gone, now resource.k8s.io/v1beta1',
    ]);
  });

  it('rejects, and asks again next time, when no known version or not the group is served', async () => {
    const discovery = await discoveryOf(['v1alpha3']);
    await expect(discovery.version()).rejects.toThrow(
      'the API server serves resource.k8s.io v1alpha3, none of v1, v1beta2, v1beta1: DRA needs Kubernetes 1.32 or newer',
    );
    api.versions = [];
    await expect(discovery.version()).rejects.toThrow('serves resource.k8s.io (no version), none of');
    api.versions = ['v1beta2'];
    await expect(discovery.version()).resolves.toBe('v1beta2');
  });
});
