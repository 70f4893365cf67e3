import { buildNodeSnapshot, numaLabel } from './node-snapshot';
import { claimResources, podWithClaims, podWithDevices } from './testing/fake-pod-resources-server';

const gpu = 'nvidia.com/gpu';
const topo = (...ids: number[]) => ({ nodes: ids.map((ID) => ({ ID })) });

describe('buildNodeSnapshot', () => {
  it('merges the per-NUMA entries the kubelet lists for one device and derives unallocated devices', () => {
    const snapshot = buildNodeSnapshot(
      {
        devices: [
          { resourceName: gpu, deviceIds: ['g0'], topology: topo(0) },
          { resourceName: gpu, deviceIds: ['g1'], topology: topo(1) },
          { resourceName: gpu, deviceIds: ['g1'], topology: topo(0) },
          { resourceName: gpu, deviceIds: ['g2'], topology: undefined },
        ],
        cpuIds: [3, 1, 1, 2],
        memory: [{ memoryType: 'memory', size: 1024, topology: topo(0) }],
      },
      { podResources: [podWithDevices('p', 'c', gpu, ['g1', 'g1'], { numa: 1 })] },
    );
    expect(snapshot.allocatable?.devices).toEqual([
      { resource: gpu, device: 'g0', numaNode: '0' },
      { resource: gpu, device: 'g1', numaNode: '0,1' },
      { resource: gpu, device: 'g2', numaNode: '' },
    ]);
    expect(snapshot.allocatable?.cpuIds).toEqual([1, 2, 3]);
    expect(snapshot.allocated).toEqual([
      { namespace: 'default', pod: 'p', container: 'c', resource: gpu, device: 'g1', numaNode: '0,1' },
    ]);
    expect(snapshot.unallocated.map((d) => d.device)).toEqual(['g0', 'g2']);
  });

  it('keeps List topology for devices not allocatable (e.g. unhealthy), and reports CPUs and memory per holder', () => {
    const pod = podWithDevices('p', 'c', gpu, ['bad'], {
      numa: 1,
      namespace: 'ml',
      cpuIds: [4, 5],
      memory: [{ memoryType: 'hugepages-1Gi', size: 2 ** 30, topology: topo(1) }],
    });
    pod.cpuIds = [7];
    const snapshot = buildNodeSnapshot(undefined, { podResources: [pod] });
    expect(snapshot.allocatable).toBeUndefined();
    expect(snapshot.unallocated).toEqual([]);
    expect(snapshot.allocated).toEqual([
      { namespace: 'ml', pod: 'p', container: 'c', resource: gpu, device: 'bad', numaNode: '1' },
    ]);
    expect(snapshot.cpus).toEqual([
      { namespace: 'ml', pod: 'p', container: '', cpu: 7 },
      { namespace: 'ml', pod: 'p', container: 'c', cpu: 4 },
      { namespace: 'ml', pod: 'p', container: 'c', cpu: 5 },
    ]);
    expect(snapshot.memory).toEqual([
      {
        namespace: 'ml',
        pod: 'p',
        container: 'c',
        memoryType: 'hugepages-1Gi',
        numaNode: '1',
        bytes: 2 ** 30,
      },
    ]);
  });

  it('lists DRA devices per container and claim, apart from the device-plugin devices', () => {
    const gpu0 = { driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' };
    const gpu1 = { ...gpu0, device: 'gpu-1' };
    const shared = claimResources('shared', 'ml', [gpu0, gpu1]);
    const pod = podWithClaims('train', 'ml', {
      main: [shared, claimResources('own', 'ml', [{ ...gpu0, device: 'gpu-2' }])],
      // The kubelet repeats a device when the claim lists it twice; it is one row.
      sidecar: [claimResources('shared', 'ml', [gpu1, gpu1])],
    });
    const snapshot = buildNodeSnapshot(undefined, { podResources: [pod] });
    expect(snapshot.allocated).toEqual([]);
    const holder = { namespace: 'ml', pod: 'train' };
    expect(snapshot.draDevices).toEqual([
      { ...holder, container: 'main', claim: 'shared', ...gpu0 },
      { ...holder, container: 'main', claim: 'shared', ...gpu1 },
      { ...holder, container: 'main', claim: 'own', ...gpu0, device: 'gpu-2' },
      { ...holder, container: 'sidecar', claim: 'shared', ...gpu1 },
    ]);
  });

  it('labels NUMA nodes sorted and unique', () => {
    expect(numaLabel(topo(3, 1, 3))).toBe('1,3');
    expect(numaLabel(undefined)).toBe('');
  });
});
