import type { PooledFunction } from '../resources/assign-pools';
import { deviceInfoFileName, pciDeviceInfo } from './device-info';
import { containerAllocation, envVarName } from './container-allocation';
import { sriovConfigSchema, type SriovPool } from '../config';
import { testVf, type TestVfOverrides } from '../testing/test-vf';

const member = (overrides: TestVfOverrides, selectorIndex = 0): PooledFunction => ({
  fn: testVf(overrides),
  selectorIndex,
  healthy: true,
});
const pool = (raw: Record<string, unknown>): SriovPool =>
  sriovConfigSchema.parse({ resourceList: [{ resourceName: 'p', ...raw }] }).resourceList[0] as SriovPool;
const host = {
  rdmaCharDevices: new Map([
    [
      'mlx5_3',
      [
        '/dev/infiniband/uverbs3',
        '/dev/infiniband/umad3',
        '/dev/infiniband/issm3',
        '/dev/infiniband/rdma_cm',
      ],
    ],
  ]),
  vhostNet: true,
};

// Expected values are what sriov-network-device-plugin returns for the same device and pool (reference notes:
// env PCIDEVICE_<PREFIX>_<NAME> and _INFO from its info providers, Go's encoding/json, device specs by host path).
describe('Allocate output, compared with sriov-network-device-plugin', () => {
  it('mangles the env name as upstream: dots to underscores, upper case, dashes kept', () => {
    expect(envVarName('intel.com/intel_sriov_netdevice')).toBe('PCIDEVICE_INTEL_COM_INTEL_SRIOV_NETDEVICE');
    expect(envVarName('openshift.io/mlx-vf')).toBe('PCIDEVICE_OPENSHIFT_IO_MLX-VF');
  });

  it('kernel-driver VF: no device nodes, addresses and the generic info', () => {
    const a = member({ address: '0000:3b:02.0' });
    const b = member({ address: '0000:3b:02.2' });
    expect(containerAllocation('intel.com/intel_sriov_netdevice', [b, a], pool({}), host)).toEqual({
      envs: {
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_NETDEVICE: '0000:3b:02.2,0000:3b:02.0',
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_NETDEVICE_INFO:
          '{"0000:3b:02.0":{"generic":{"deviceID":"0000:3b:02.0"}},"0000:3b:02.2":{"generic":{"deviceID":"0000:3b:02.2"}}}',
      },
      devices: [],
    });
  });

  it('vfio-pci VFs: /dev/vfio/vfio once, each group, and the vfio info', () => {
    const vfs = [
      member({ address: '0000:3b:02.4', driver: 'vfio-pci', iommuGroup: 104 }),
      member({ address: '0000:3b:02.5', driver: 'vfio-pci', iommuGroup: 105 }),
    ];
    expect(containerAllocation('intel.com/dpdk', vfs, pool({}), host)).toEqual({
      envs: {
        PCIDEVICE_INTEL_COM_DPDK: '0000:3b:02.4,0000:3b:02.5',
        PCIDEVICE_INTEL_COM_DPDK_INFO:
          '{"0000:3b:02.4":{"generic":{"deviceID":"0000:3b:02.4"},"vfio":{"dev-mount":"/dev/vfio/104","mount":"/dev/vfio/vfio"}},' +
          '"0000:3b:02.5":{"generic":{"deviceID":"0000:3b:02.5"},"vfio":{"dev-mount":"/dev/vfio/105","mount":"/dev/vfio/vfio"}}}',
      },
      devices: [
        { hostPath: '/dev/vfio/vfio', containerPath: '/dev/vfio/vfio', permissions: 'rw' },
        { hostPath: '/dev/vfio/104', containerPath: '/dev/vfio/104', permissions: 'rw' },
        { hostPath: '/dev/vfio/105', containerPath: '/dev/vfio/105', permissions: 'rw' },
      ],
    });
  });

  it('vfio in no-IOMMU mode: host /dev/vfio/noiommu-N, container /dev/vfio/N', () => {
    const vf = member({ driver: 'vfio-pci', iommuGroup: 7, noIommu: true });
    expect(containerAllocation('intel.com/dpdk', [vf], pool({}), host).devices).toEqual([
      { hostPath: '/dev/vfio/vfio', containerPath: '/dev/vfio/vfio', permissions: 'rw' },
      { hostPath: '/dev/vfio/noiommu-7', containerPath: '/dev/vfio/7', permissions: 'rw' },
    ]);
  });

  it('igb_uio VF: its /dev/uioN', () => {
    const vf = member({ driver: 'igb_uio', uioDevices: ['uio0'] });
    expect(containerAllocation('intel.com/uio', [vf], pool({}), host)).toMatchObject({
      devices: [{ hostPath: '/dev/uio0', containerPath: '/dev/uio0', permissions: 'rw' }],
      envs: {
        PCIDEVICE_INTEL_COM_UIO_INFO:
          '{"0000:3b:02.1":{"generic":{"deviceID":"0000:3b:02.1"},"uio":{"mount":"/dev/uio0"}}}',
      },
    });
  });

  it('isRdma pool: every RDMA character device and the rdma info; device-info names the RDMA device', () => {
    const vf = member({ address: '0000:d8:00.3', driver: 'mlx5_core', rdmaDevices: ['mlx5_3'] });
    const allocation = containerAllocation(
      'nvidia.com/rdma',
      [vf],
      pool({ selectors: { isRdma: true } }),
      host,
    );
    expect(allocation.devices?.map((d) => d.hostPath)).toEqual([
      '/dev/infiniband/uverbs3',
      '/dev/infiniband/umad3',
      '/dev/infiniband/issm3',
      '/dev/infiniband/rdma_cm',
    ]);
    expect(allocation.envs?.['PCIDEVICE_NVIDIA_COM_RDMA_INFO']).toBe(
      '{"0000:d8:00.3":{"generic":{"deviceID":"0000:d8:00.3"},"rdma":{"issm":"/dev/infiniband/issm3",' +
        '"rdma_cm":"/dev/infiniband/rdma_cm","rdma_dev":"mlx5_3","umad":"/dev/infiniband/umad3","uverbs":"/dev/infiniband/uverbs3"}}}',
    );
    expect(pciDeviceInfo('0000:d8:00.3', ['mlx5_3'])).toBe(
      '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:d8:00.3","rdma-device":"mlx5_3"}}',
    );
    expect(deviceInfoFileName('nvidia.com/rdma', '0000:d8:00.3')).toBe(
      'nvidia.com-rdma-0000:d8:00.3-device.json',
    );
  });

  it('needVhostNet (of the selector that matched): /dev/vhost-net and /dev/net/tun, and the vhost info', () => {
    const p = pool({ selectors: [{ drivers: ['nothing'] }, { needVhostNet: true }] });
    const allocation = containerAllocation('intel.com/vhost', [member({}, 1)], p, host);
    expect(allocation.devices).toEqual([
      { hostPath: '/dev/vhost-net', containerPath: '/dev/vhost-net', permissions: 'rw' },
      { hostPath: '/dev/net/tun', containerPath: '/dev/net/tun', permissions: 'rw' },
    ]);
    expect(allocation.envs?.['PCIDEVICE_INTEL_COM_VHOST_INFO']).toBe(
      '{"0000:3b:02.1":{"generic":{"deviceID":"0000:3b:02.1"},"vhost":{"net-mount":"/dev/vhost-net","tun-mount":"/dev/net/tun"}}}',
    );
    expect(
      containerAllocation('intel.com/vhost', [member({}, 1)], p, { ...host, vhostNet: false }).devices,
    ).toEqual([]);
  });

  it('additionalInfo: "*" then the device\'s own keys, as "extra", escaped as Go does', () => {
    const p = pool({ additionalInfo: { '*': { team: 'a&b', zone: 'x' }, '0000:3b:02.1': { zone: '<1>' } } });
    expect(
      containerAllocation('intel.com/x', [member({})], p, host).envs?.['PCIDEVICE_INTEL_COM_X_INFO'],
    ).toBe(
      '{"0000:3b:02.1":{"extra":{"team":"a\\u0026b","zone":"\\u003c1\\u003e"},"generic":{"deviceID":"0000:3b:02.1"}}}',
    );
    const other = member({ address: '0000:3b:02.2' });
    expect(
      containerAllocation('intel.com/x', [other], pool({ additionalInfo: {} }), host).envs?.[
        'PCIDEVICE_INTEL_COM_X_INFO'
      ],
    ).toBe('{"0000:3b:02.2":{"extra":{},"generic":{"deviceID":"0000:3b:02.2"}}}');
  });
});
