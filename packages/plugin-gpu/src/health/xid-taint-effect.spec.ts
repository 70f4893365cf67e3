import type { PluginDevice } from '@kdp/core';
import type { GpuPayload } from '../resources/gpu-payload';
import type { Gpu } from '../scan/gpu';
import { xidTaintEffect } from './xid-taint-effect';

describe('xidTaintEffect', () => {
  const device = (xids?: number[]): PluginDevice<GpuPayload> => ({
    id: 'GPU-1',
    health: 'Unhealthy',
    payload: {
      gpu: { id: 'GPU-1', kind: 'nvidia', problems: ['x'], ...(xids ? { xids } : {}) } as unknown as Gpu,
    },
  });

  it('evicts (NoExecute) on an Xid that loses the GPU: 79, 48, 95; else NoSchedule', () => {
    expect(xidTaintEffect(device([79]))).toBe('NoExecute');
    expect(xidTaintEffect(device([48]))).toBe('NoExecute');
    expect(xidTaintEffect(device([94, 95]))).toBe('NoExecute');
    expect(xidTaintEffect(device([94]))).toBe('NoSchedule');
    expect(xidTaintEffect(device())).toBe('NoSchedule');
  });
});
