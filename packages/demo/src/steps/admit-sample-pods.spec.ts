import { describeAllocation, samplePodName } from './admit-sample-pods';

describe('samplePodName', () => {
  it.each([
    ['nvidia.com/gpu', 'nvidia-gpu'],
    ['amd.com/gpu', 'amd-gpu'],
    ['intel.com/sriov_netdevice', 'intel-sriov-netdevice'],
    ['rdma/hca', 'rdma-hca'],
    ['fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs', 'fpga-af-695-d84-avkntusx'],
  ])('%s → %s (a valid, short pod name)', (resource, pod) => {
    expect(samplePodName(resource)).toBe(pod);
    expect(pod).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe('describeAllocation', () => {
  it('prints each kind the response holds, one env entry per line, long values cut', () => {
    const lines = describeAllocation({
      envs: { A: '1', LONG: 'x'.repeat(300) },
      devices: [
        { hostPath: '/dev/a', containerPath: '/dev/a', permissions: 'rw' },
        { hostPath: '/dev/b', containerPath: '/dev/c', permissions: 'r' },
      ],
      mounts: [{ hostPath: '/h', containerPath: '/c', readOnly: true }],
      annotations: { 'k8s.example/x': 'y' },
      cdiDevices: [{ name: 'vendor.com/gpu=0' }],
    });
    expect(lines[0]).toBe('env          A=1');
    expect(lines[1]?.startsWith('             LONG=xxx')).toBe(true);
    expect(lines[1]).toHaveLength(13 + 150);
    expect(lines[1]?.endsWith('…')).toBe(true);
    expect(lines.slice(2)).toEqual([
      'devices      /dev/a (rw), /dev/b → /dev/c (r)',
      'mounts       /h → /c (ro)',
      'annotations  k8s.example/x=y',
      'cdi          vendor.com/gpu=0',
    ]);
  });

  it('says so when the response is empty', () => {
    expect(
      describeAllocation({ envs: {}, devices: [], mounts: [], annotations: {}, cdiDevices: [] }),
    ).toEqual(['(an empty response)']);
  });
});
