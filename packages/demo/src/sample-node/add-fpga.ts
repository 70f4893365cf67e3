import type { SysfsFixture } from '@kdp/topology/testing';
import { writeDevNode } from './dev-node';

/** The FPGA: an Intel PAC (DFL driver) on socket 1 with the NLB0 AFU loaded. */
export const FPGA_CARD = {
  address: '0000:b1:00.0',
  rootPort: '0000:b0:00.0',
  numaNode: 1,
  interfaceId: '69528db6eb31577a8c3668f9faa081f6',
  afuId: 'd8424dc4a4a3c413f89e433683f9040b',
  /** The af-mode resource name Intel's plugin derives from the two IDs above. */
  resource: 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
} as const;

/**
 * The card as the in-tree DFL driver shows it: PCI function on dfl-pci, `fpga_region/region0` holding
 * `dfl-fme.0` (interface ID in its PR region's `compat_id`) and `dfl-port.0` (`afu_id`, `errors/errors`), and
 * the /dev/dfl-port.0 and /dev/dfl-fme.0 nodes.
 */
export function addFpga(fixture: SysfsFixture, rootPort: (address: string, numaNode: number) => void): void {
  const card = FPGA_CARD;
  rootPort(card.rootPort, card.numaNode);
  const pci = fixture.addPciDevice({
    address: card.address,
    parent: card.rootPort,
    vendor: '0x8086',
    device: '0x09c4',
    class: '0x120000',
    driver: 'dfl-pci',
    numaNode: card.numaNode,
    iommuGroup: 70,
    sriovTotalVfs: 1,
  });
  const region = `${pci}/fpga_region/region0`;
  fixture.linkTo('class/fpga_region/region0', region);
  const port = `${region}/dfl-port.0`;
  fixture.write(`${port}/afu_id`, `${card.afuId}\n`);
  fixture.write(`${port}/id`, '0\n');
  fixture.write(`${port}/dev`, '238:0\n');
  fixture.write(`${port}/errors/errors`, '0x0\n');
  writeDevNode(fixture.devRoot, '/dev/dfl-port.0', 238, 0);
  const fme = `${region}/dfl-fme.0`;
  fixture.write(`${fme}/dev`, '239:0\n');
  fixture.write(`${fme}/bitstream_id`, '0x124000200000367\n');
  fixture.write(`${fme}/ports_num`, '1\n');
  const prRegion = `${fme}/dfl-fme-region.0/fpga_region/region100`;
  fixture.write(`${prRegion}/compat_id`, `${card.interfaceId}\n`);
  fixture.linkTo('class/fpga_region/region100', prRegion);
  writeDevNode(fixture.devRoot, '/dev/dfl-fme.0', 239, 0);
}
