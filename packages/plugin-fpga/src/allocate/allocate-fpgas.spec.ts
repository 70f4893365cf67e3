import { createHost } from '@kdp/topology';
import { planResources } from '../resources/plan-resources';
import { scanFpgas } from '../scan/scan-fpgas';
import { createFpgaFixture, IF_ID, NLB0 } from '../testing/create-fpga-fixture';
import { allocateFpgas } from './allocate-fpgas';

describe('allocateFpgas', () => {
  it('af mode: the port nodes of every device, as Intel’s plugin, with envs naming them', async () => {
    const fx = createFpgaFixture();
    try {
      fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
      fx.addDflCard({ address: '0000:82:00.0', index: 1, interfaceId: IF_ID, afuId: NLB0 });
      const scan = await scanFpgas(createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot }));
      const [resource] = planResources(scan, {
        mode: 'af',
        amd: { includeManagement: false },
        programming: [],
      }).resources;
      // Host and container paths are the same, as Intel's plugin gives them.
      const ports = ['/dev/dfl-port.0', '/dev/dfl-port.1'];
      expect(allocateFpgas(resource?.devices ?? [])).toEqual({
        devices: ports.map((port) => ({ containerPath: port, hostPath: port, permissions: 'rw' })),
        envs: {
          KDP_FPGA_DEVICE_IDS: 'dfl-port.0,dfl-port.1',
          KDP_FPGA_PORTS: ports.join(','),
          KDP_FPGA_INTERFACE_ID: IF_ID,
          KDP_FPGA_AFU_ID: NLB0,
        },
      });
    } finally {
      fx.remove();
    }
  });
});
