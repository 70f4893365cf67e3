import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateResourceName } from '@kdp/api';
import { createHost } from '@kdp/topology';
import { planResources } from '../resources/plan-resources';
import { createFpgaFixture, IF_ID, NLB0 } from '../testing/create-fpga-fixture';
import { scanFpgas } from './scan-fpgas';

describe('scanFpgas on garbage', () => {
  it('never throws; every advertised name is valid and every card is advertised or excluded (fuzzed)', async () => {
    const fx = createFpgaFixture();
    try {
      const dfl = fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
      const opae = fx.addOpaeCard({ address: '0000:5e:00.0', index: 1, interfaceId: IF_ID, afuId: NLB0 });
      const { userDir } = fx.addAlveoCard({
        slot: '0000:3b:00',
        vbnv: 'xilinx_u50',
        timestamp: '0',
        render: 128,
        instance: 15104,
      });
      const files = [
        `${dfl.portDir}/afu_id`,
        `${dfl.fmeDir as string}/dfl-fme-region.0/fpga_region/region100/compat_id`,
        `${dfl.portDir}/errors/errors`,
        `${opae.portDir}/afu_id`,
        `${opae.fmeDir as string}/pr/interface_id`,
        `${userDir}/rom.0/VBNV`,
        `${userDir}/rom.0/timestamp`,
        `${userDir}/numa_node`,
      ];
      const content = fc.oneof(
        fc.string({ maxLength: 70 }),
        fc.constantFrom('', '\n', '-1', 'ffffffffffffffffffffffffffffffff', IF_ID),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(content, { minLength: files.length, maxLength: files.length }),
          fc.constantFrom('af', 'region') as fc.Arbitrary<'af' | 'region'>,
          async (contents, mode) => {
            files.forEach((file, i) => writeFileSync(join(fx.root, file), contents[i] as string));
            const scan = await scanFpgas(createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot }));
            const inventory = planResources(scan, {
              mode,
              amd: { includeManagement: false },
              programming: [],
            });
            const advertised = inventory.resources.flatMap((r) => {
              expect(validateResourceName(r.name).valid).toBe(true);
              return r.devices;
            });
            // Three cards: each is a device somewhere or has an excluded entry.
            expect(advertised.length + inventory.excluded.length).toBeGreaterThanOrEqual(3);
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      fx.remove();
    }
  }, 60_000);
});
