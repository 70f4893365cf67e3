import type { PluginDevice } from '@kdp/core';
import type { Gpu, GpuScan } from './gpu';
import { retiredGpuDevices } from './retired-gpu-devices';

const amd = (id: string, pciAddress: string, compute: string, memory = 'NPS1'): Gpu =>
  ({ kind: 'amd', id, pciAddress, partitionModes: { compute, memory } }) as unknown as Gpu;
const scanOf = (gpus: readonly Gpu[]): GpuScan =>
  ({ gpus, excluded: [], warnings: [], candidates: [], procfsDirs: [] }) as GpuScan;
const remembered = (gpu: Gpu): PluginDevice<unknown> => ({ id: gpu.id, health: 'Healthy', payload: { gpu } });

describe('retiredGpuDevices', () => {
  it('retires the AMD partitions of a GPU that now reports other partition modes, and only those', () => {
    const cpxPartition = amd('amdgpu_xcp_3', '0000:05:00.0', 'CPX', 'NPS4');
    const otherGpu = amd('amdgpu_xcp_9', '0000:15:00.0', 'CPX', 'NPS4');
    const gone = amd('amdgpu_xcp_17', '0000:25:00.0', 'CPX', 'NPS4');
    const retired = retiredGpuDevices(
      scanOf([
        amd('0000:05:00.0', '0000:05:00.0', 'SPX', 'NPS1'),
        amd('0000:15:00.0', '0000:15:00.0', 'CPX', 'NPS4'),
      ]),
    );
    expect(retired(remembered(cpxPartition))).toBe(true); // its GPU went CPX → SPX
    expect(retired(remembered(otherGpu))).toBe(false); // same modes: it merely vanished (kept Unhealthy)
    expect(retired(remembered(gone))).toBe(false); // its GPU is gone from the bus: kept Unhealthy
    expect(retired({ id: 'x', health: 'Healthy' })).toBe(false);
  });
});
