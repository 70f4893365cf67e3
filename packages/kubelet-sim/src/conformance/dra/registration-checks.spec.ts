import { checkPluginInfo, checkServices } from './registration-checks';

const info = { type: 'DRAPlugin', name: 'gpu.example.com', endpoint: '/p/dra.sock', supportedVersions: [] };

describe('registration checks', () => {
  it('plugin-info demands type DRAPlugin, the driver name as a DNS subdomain, and an absolute endpoint', () => {
    expect(checkPluginInfo(info, 'gpu.example.com').status).toBe('pass');
    const bad = checkPluginInfo({ ...info, type: 'DevicePlugin', name: 'GPU', endpoint: 'dra.sock' }, 'GPU');
    expect(bad.status).toBe('fail');
    expect(bad.reason).toMatch(
      /^type is "DevicePlugin", not "DRAPlugin"; name "GPU" is not a DNS subdomain .*; endpoint "dra\.sock" is not an absolute path/,
    );
    expect(checkPluginInfo(info, 'other.example.com').reason).toMatch(
      /^name is "gpu\.example\.com", not "other/,
    );
  });

  it('supported-services demands v1.DRAPlugin; service-order warns about an older service first or twice', () => {
    const statuses = (list: string[]): string[] => checkServices(list).map((c) => c.status);
    expect(
      statuses(['v1.DRAPlugin', 'v1beta1.DRAPlugin', 'v1.DRAResourceHealth', 'v1alpha1.DRAResourceHealth']),
    ).toEqual(['pass', 'pass']);
    expect(statuses(['v1beta1.DRAPlugin'])).toEqual(['fail', 'pass']);
    expect(checkServices(['v1beta1.DRAPlugin', 'v1.DRAPlugin'])[1]?.reason).toMatch(
      /^v1beta1\.DRAPlugin before v1\.DRAPlugin: the kubelet takes the first/,
    );
    expect(statuses(['v1.DRAPlugin', 'v1alpha1.DRAResourceHealth', 'v1.DRAResourceHealth'])).toEqual([
      'pass',
      'warn',
    ]);
    expect(checkServices(['v1.DRAPlugin', 'v1.DRAPlugin'])[1]?.reason).toMatch(/^v1\.DRAPlugin listed twice/);
    expect(checkServices(['v2.Other'])[0]?.reason).toMatch(/lacks v1\.DRAPlugin.*; no kubelet accepts it/);
  });
});
