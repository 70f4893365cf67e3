import type { PluginDevice } from '@kdp/core';
import type { Gpu } from '../scan/gpu';
import { gpuDraSharing } from './dra-sharing';
import type { GpuPayload } from './gpu-payload';
import { gpuDevices } from './plan-resources';

const gpu = (id: string, kind: Gpu['kind'] = 'nvidia'): Gpu => ({
  kind,
  id,
  pciAddress: '0000:03:00.0',
  model: 'NVIDIA H100 80GB HBM3',
  numaNodes: [0],
  pciePath: [],
  deviceNodes: ['/dev/nvidia0'],
  sharedNodes: [],
  mounts: [],
  attributes: { uuid: id },
  problems: [],
  xgmiPeers: [],
});

describe('gpuDraSharing', () => {
  const devices: PluginDevice<GpuPayload>[] = [
    ...gpuDevices(gpu('GPU-a'), 4),
    ...gpuDevices(gpu('GPU-b'), 1),
  ];

  it('publishes a time-sliced GPU once, with its replicas as the timeSlices capacity; a whole GPU stays exclusive', () => {
    const sharing = gpuDraSharing(devices);
    const published = sharing?.devices?.(devices) ?? [];
    expect(published.map((d) => [d.id, d.attributes?.['replica'], d.payload?.replica])).toEqual([
      ['GPU-a', undefined, undefined],
      ['GPU-b', undefined, undefined],
    ]);
    expect(sharing?.capacity(published[0] as PluginDevice<GpuPayload>)).toEqual({
      timeSlices: { value: 4, requestPolicy: { default: 1, validRange: { min: 1, max: 4, step: 1 } } },
    });
    expect(sharing?.capacity(published[1] as PluginDevice<GpuPayload>)).toBeUndefined();
  });

  it('gives a share its slices as env, CUDA MPS’s percentage on NVIDIA only', () => {
    const shared = gpuDraSharing(devices)?.devices?.(devices)[0] as PluginDevice<GpuPayload>;
    expect(gpuDraSharing(devices)?.env?.(shared, { id: 's', consumed: { timeSlices: '3' } })).toEqual({
      KDP_GPU_TIME_SLICES: '3/4',
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '75',
    });
    const amd = gpuDevices(gpu('0000:03:00.0', 'amd'), 2);
    const sharing = gpuDraSharing(amd);
    expect(
      sharing?.env?.(sharing.devices?.(amd)[0] as PluginDevice<GpuPayload>, { id: 's', consumed: {} }),
    ).toEqual({
      KDP_GPU_TIME_SLICES: '2/2',
    });
  });

  it('caps a claim at one slice with failRequestsGreaterThanOne, and shares nothing without replicas', () => {
    const sharing = gpuDraSharing(devices, true);
    expect(sharing?.capacity(sharing.devices?.(devices)[0] as PluginDevice<GpuPayload>)).toEqual({
      timeSlices: { value: 4, requestPolicy: { default: 1, validRange: { min: 1, max: 1, step: 1 } } },
    });
    expect(gpuDraSharing(gpuDevices(gpu('GPU-c'), 1))).toBeUndefined();
  });
});
