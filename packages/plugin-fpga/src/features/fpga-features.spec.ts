import type { ResourceSet } from '@kdp/core/plugin';
import { fpgaFeatures } from './fpga-features';

const IF_A = 'bfac4d851ee856fe8c95865ce1bbaa2d';
const AFU_1 = 'f7df405cbd7acf7222f144b0b93acd18';
const AFU_2 = 'd8424dc4a4a3c413f89e433683f9040b';

const port = (id: string, interfaceId?: string, afuId?: string) => ({
  id,
  health: 'Healthy' as const,
  payload: { vendor: 'intel', ports: [], nodes: [], interfaceId, afuId },
});

describe('fpgaFeatures', () => {
  it('counts devices per resource, per interface ID and per AFU ID', () => {
    const set: ResourceSet = {
      resources: [
        {
          name: `fpga.intel.com/af-bfa.f7d`,
          devices: [port('port0', IF_A, AFU_1), port('port1', IF_A, AFU_1)],
        },
        { name: `fpga.intel.com/af-bfa.d84`, devices: [port('port2', IF_A, AFU_2)] },
        { name: 'amd.com/xilinx_u250', devices: [port('0000:3b:00.1')] },
      ],
    };
    expect(fpgaFeatures(set)).toEqual({
      'fpga.intel.com/af-bfa.f7d.count': '2',
      'fpga.intel.com/af-bfa.d84.count': '1',
      'amd.com/xilinx_u250.count': '1',
      [`kdp.dev/fpga.interface-id.${IF_A}`]: '3',
      [`kdp.dev/fpga.afu-id.${AFU_1}`]: '2',
      [`kdp.dev/fpga.afu-id.${AFU_2}`]: '1',
    });
  });
});
