import { buildInventory } from './build-inventory';
import { fpgaAllocation } from './fpga-allocation';
import { createFpgaFixture, IF_ID, NLB0 } from './fpga-sysfs.fixture';
import { scanFpgas } from './scan-fpgas';

describe('fpgaAllocation', () => {
  it('af mode: the port nodes of every device, as Intel’s plugin, with envs naming them', async () => {
    const fx = createFpgaFixture();
    try {
      fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
      fx.addDflCard({ address: '0000:82:00.0', index: 1, interfaceId: IF_ID, afuId: NLB0 });
      const scan = await scanFpgas({ sysfsRoot: fx.root, devRoot: fx.devRoot });
      const [resource] = buildInventory(scan, {
        mode: 'af',
        amd: { includeManagement: false },
        programming: [],
      }).resources;
      expect(fpgaAllocation(resource?.devices ?? [])).toEqual({
        devices: [
          { containerPath: '/dev/dfl-port.0', hostPath: '/dev/dfl-port.0', permissions: 'rw' },
          { containerPath: '/dev/dfl-port.1', hostPath: '/dev/dfl-port.1', permissions: 'rw' },
        ],
        envs: {
          KDP_FPGA_DEVICE_IDS: 'dfl-port.0,dfl-port.1',
          KDP_FPGA_PORTS: '/dev/dfl-port.0,/dev/dfl-port.1',
          KDP_FPGA_INTERFACE_ID: IF_ID,
          KDP_FPGA_AFU_ID: NLB0,
        },
      });
    } finally {
      fx.remove();
    }
  });
});
