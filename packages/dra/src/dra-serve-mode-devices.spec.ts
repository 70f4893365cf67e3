import { cdiDeviceEdits, draDeviceName, draPoolName, toSliceDevice } from './dra-serve-mode-devices';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

describe('the DRA device model of plugin devices', () => {
  it('names devices by DNS labels: the ID when it is one, else a stable hashed form', () => {
    expect(draDeviceName('a50285bi')).toBe('a50285bi');
    const mig = 'MIG-GPU-5b7d8a4c-1f0e-4a8e-9c61-0d1f2e3a4b5c/3/0';
    const names = [
      mig,
      'MIG-GPU-5b7d8a4c-1f0e-4a8e-9c61-0d1f2e3a4b5c-3-0',
      'A',
      'a-',
      'x'.repeat(200),
      '///',
    ].map(draDeviceName);
    for (const name of names) expect(name).toMatch(DNS_LABEL);
    expect(new Set([...names, 'a']).size).toBe(names.length + 1);
    expect(draDeviceName(mig)).toBe(names[0]);
  });

  it('names pools <node>/<resource> as DNS subdomain segments', () => {
    expect(draPoolName('node-a', 'nvidia.com/gpu')).toBe('node-a/nvidia.com/gpu');
    expect(draPoolName('node-a', 'intel.com/SRIOV_netdevice')).toBe('node-a/intel.com/sriov-netdevice');
  });

  it('publishes attributes within the v1 limits, ours first, and the standard PCI ones', () => {
    const attributes = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`k-${String(i).padStart(2, '0')}`, 'v'.repeat(100)]),
    );
    const device = toSliceDevice('example.com/gpu', {
      id: 'GPU-1',
      health: 'Healthy',
      numaNodes: [1],
      pciAddress: '0000:3b:00.0',
      pciePath: ['0000:3a:00.0'],
      attributes: { '9lives': 'x', ...attributes },
    });
    const keys = Object.keys(device.attributes ?? {});
    expect(keys.length + 2).toBe(32);
    expect(device.attributes).toMatchObject({
      resource: 'example.com/gpu',
      id: 'GPU-1',
      numa: 1,
      _9lives: 'x',
    });
    expect(device.attributes?.['k_00']).toBe('v'.repeat(64));
    expect([device.pciBusId, device.pcieRoot]).toEqual(['0000:3b:00.0', 'pci0000:3a']);
    expect(toSliceDevice('example.com/usb', { id: 'x', health: 'Healthy' }).pciBusId).toBeUndefined();
  });

  it("gives a device's CDI edits its nodes and mounts, device-list variables `void` and its own env names", () => {
    const allocation = {
      envs: { PCIDEVICE_X: '0000:3b:02.1', NVIDIA_VISIBLE_DEVICES: 'GPU-1' },
      devices: [{ containerPath: '/dev/vfio/7', hostPath: '/dev/vfio/7', permissions: 'rw' }],
      mounts: [{ containerPath: '/run/x', hostPath: '/run/x', readOnly: true }],
    };
    expect(cdiDeviceEdits(allocation, { NVIDIA_VISIBLE_DEVICES: 'GPU-1' }, 'vf-1-a2b3')).toEqual({
      env: ['NVIDIA_VISIBLE_DEVICES=void', 'PCIDEVICE_X_VF_1_A2B3=0000:3b:02.1'],
      deviceNodes: [{ path: '/dev/vfio/7', permissions: 'rw' }],
      mounts: [
        { hostPath: '/run/x', containerPath: '/run/x', type: 'bind', options: ['rbind', 'ro', 'nosuid'] },
      ],
    });
    expect(cdiDeviceEdits({}, {}, 'd')).toBeUndefined();
  });
});
