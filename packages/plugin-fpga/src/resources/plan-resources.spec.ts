import { createHost } from '@kdp/topology';
import { scanFpgas } from '../scan/scan-fpgas';
import { createFpgaFixture, IF_ID, NLB0, type FpgaFixture } from '../testing/create-fpga-fixture';
import { planResources } from './plan-resources';

describe('planResources: preferred allocation', () => {
  let fx: FpgaFixture;
  afterEach(() => fx.remove());

  /** The one af resource of four ports: three on NUMA node 1 (two behind one switch), one on node 0. */
  async function afResource() {
    fx = createFpgaFixture();
    fx.addPciDevice({ address: '0000:80:01.0', class: '0x060400', numaNode: 1 });
    fx.addPciDevice({ address: '0000:80:02.0', class: '0x060400', numaNode: 1 });
    const card = { interfaceId: IF_ID, afuId: NLB0 };
    fx.addDflCard({ ...card, address: '0000:81:00.0', index: 0, numaNode: 1, parent: '0000:80:01.0' });
    fx.addDflCard({ ...card, address: '0000:82:00.0', index: 1, numaNode: 1, parent: '0000:80:02.0' });
    fx.addDflCard({ ...card, address: '0000:83:00.0', index: 2, numaNode: 1, parent: '0000:80:01.0' });
    fx.addDflCard({ ...card, address: '0000:3b:00.0', index: 3, numaNode: 0 });
    const scan = await scanFpgas(createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot }));
    const plan = planResources(scan, { mode: 'af', amd: { includeManagement: false }, programming: [] });
    expect(plan.resources).toHaveLength(1);
    const resource = plan.resources[0];
    if (resource?.preferredAllocation === undefined) throw new Error('no preferredAllocation hook');
    const hook = resource.preferredAllocation;
    return (mustInclude: string[], size: number) =>
      hook({ resource: resource.name, available: resource.devices, mustInclude, size });
  }

  it('keeps a request on the NUMA node of what it must include, then behind the same PCIe switch', async () => {
    const prefer = await afResource();
    expect(await prefer(['dfl-port.0'], 2)).toEqual(['dfl-port.0', 'dfl-port.2']);
    expect(await prefer(['dfl-port.1'], 2)).not.toContain('dfl-port.3');
    expect([...(await prefer([], 3))].sort()).toEqual(['dfl-port.0', 'dfl-port.1', 'dfl-port.2']);
  });
});
