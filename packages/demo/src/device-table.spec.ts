import type { ResourceState } from '@kdp/kubelet-sim';
import { renderDeviceTable } from './device-table';

const state = (name: string, devices: [string, string, number[]][], registered = true): ResourceState => ({
  name,
  endpoint: 'x.sock',
  registered,
  apiVersion: 'v1beta1',
  options: { preStartRequired: false, getPreferredAllocationAvailable: false },
  devices: devices.map(([ID, health, nodes]) => ({
    ID,
    health,
    topology: nodes.length > 0 ? { nodes: nodes.map((n) => ({ ID: n })) } : undefined,
  })),
  healthy: devices.filter(([, h]) => h === 'Healthy').map(([id]) => id),
  unhealthy: devices.filter(([, h]) => h !== 'Healthy').map(([id]) => id),
  capacity: devices.length,
  allocatable: devices.filter(([, h]) => h === 'Healthy').length,
});

describe('renderDeviceTable', () => {
  const expected = [
    { plugin: 'gpu', resource: 'nvidia.com/gpu', devices: 2 },
    {
      plugin: 'fpga',
      resource: 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
      devices: 1,
    },
    { plugin: 'usb', resource: 'example.com/zigbee', devices: 1 },
  ] as const;

  it('lists every device with health, NUMA nodes and holder under a summary, in the expected order', () => {
    const states = new Map([
      [
        'nvidia.com/gpu',
        state('nvidia.com/gpu', [
          ['GPU-b', 'Unhealthy', [1]],
          ['GPU-a', 'Healthy', [0]],
        ]),
      ],
      [expected[1].resource, state(expected[1].resource, [['dfl-port.0', 'Healthy', [0, 1]]], false)],
    ]);
    const lines = renderDeviceTable({
      expected,
      resource: (name) => states.get(name),
      holder: (resource, id) => (resource === 'nvidia.com/gpu' && id === 'GPU-a' ? 'pod-a' : undefined),
    });
    expect(lines).toEqual([
      'kubelet-sim: 1/3 resources registered, 3 devices, 2 healthy, 1 unhealthy',
      'PLUGIN  RESOURCE                              DEVICE      HEALTH                  NUMA  POD',
      'gpu     nvidia.com/gpu                        GPU-a       Healthy                 0     pod-a',
      'gpu     nvidia.com/gpu                        GPU-b       Unhealthy               1     -',
      'fpga    fpga.intel.com/af-695.d84.aVKNtusxV…  dfl-port.0  Healthy (stream ended)  0,1   -',
      'usb     example.com/zigbee                    -           not registered          -     -',
    ]);
  });

  it('says when a registered resource has no devices', () => {
    const lines = renderDeviceTable({
      expected: [expected[2]],
      resource: () => state('example.com/zigbee', []),
    });
    expect(lines[2]).toBe('usb     example.com/zigbee  -       no devices  -     -');
  });
});
