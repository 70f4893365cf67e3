import type { Gpu } from '../scan/gpu';
import { gpuConfig } from '../testing/fixture-devices';
import { amdGpuRecord } from '../testing/amd-machines';
import { amdMixedResourceName } from './amd-resource-names';
import { resourceNameOf } from './resource-names';

const gpu = (partitionModes?: Gpu['partitionModes'], kind: Gpu['kind'] = 'amd'): Gpu =>
  amdGpuRecord({
    kind,
    id: 'amdgpu_xcp_3',
    pciAddress: '0000:05:00.0',
    ...(partitionModes !== undefined ? { partitionModes } : {}),
  });

describe('amdMixedResourceName', () => {
  const mixed = gpuConfig({ amd: { resourceNamingStrategy: 'mixed' } });

  it('mixed: <compute>_<memory> in lower case under the AMD resource domain, as ROCm', () => {
    expect(amdMixedResourceName(gpu({ compute: 'CPX', memory: 'NPS4' }), mixed)).toBe('amd.com/cpx_nps4');
    expect(amdMixedResourceName(gpu({ compute: 'SPX', memory: 'NPS1' }), mixed)).toBe('amd.com/spx_nps1');
    const renamed = gpuConfig({
      amd: { resourceNamingStrategy: 'mixed' },
      resourceNames: { amd: 'example.com/accel' },
    });
    expect(amdMixedResourceName(gpu({ compute: 'QPX', memory: 'NPS4' }), renamed)).toBe(
      'example.com/qpx_nps4',
    );
  });

  it('single (the default), an unknown mode or another vendor: no partition name', () => {
    expect(amdMixedResourceName(gpu({ compute: 'CPX', memory: 'NPS4' }), gpuConfig())).toBeUndefined();
    expect(amdMixedResourceName(gpu({ compute: 'CPX' }), mixed)).toBeUndefined();
    expect(amdMixedResourceName(gpu(), mixed)).toBeUndefined();
    expect(amdMixedResourceName(gpu({ compute: 'CPX', memory: 'NPS4' }, 'xe'), mixed)).toBeUndefined();
  });

  it('resourceNameOf: mixed wins over model names; otherwise the AMD GPU resource', () => {
    const both = gpuConfig({ amd: { resourceNamingStrategy: 'mixed' }, splitByModel: true });
    expect(resourceNameOf(gpu({ compute: 'DPX', memory: 'NPS1' }), both)).toBe('amd.com/dpx_nps1');
    expect(resourceNameOf(gpu(), both)).toBe('amd.com/instinct-mi300x');
    expect(resourceNameOf(gpu({ compute: 'DPX', memory: 'NPS1' }), gpuConfig())).toBe('amd.com/gpu');
  });
});
