import { chmodSync, writeFileSync } from 'node:fs';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';

/** Intel's example interface ID (intel #667 and the af-name example of the reference notes). */
export const IF_ID = '69528db6eb31577a8c3668f9faa081f6';
/** The AFU ID of Intel's NLB0 sample accelerator. */
export const NLB0 = 'd8424dc4a4a3c413f89e433683f9040b';
/** The AFU ID of Intel's NLB3 sample accelerator. */
export const NLB3 = 'f7df405cbd7acf7222f144b0b93acd18';

/** An Alveo U200 with Xilinx's example shell, on NUMA node 0. */
export const U200: AlveoSpec = {
  slot: '0000:3b:00',
  numaNode: 0,
  vbnv: 'xilinx_u200_xdma_201830_1',
  timestamp: '1542252769',
  render: 128,
  instance: 15104,
};

/** An FPGA fixture machine: two NUMA nodes plus helpers for each driver layout (device nodes as `c MAJ:MIN`). */
export interface FpgaFixture extends SysfsFixture {
  /** A DFL card: PCI function, regionN with dfl-fme.N (interface id in the FME region's compat_id) and dfl-port.N. */
  addDflCard(spec: IntelCardSpec): { portDir: string; fmeDir?: string };
  /** An OPAE legacy card: intel-fpga-dev.N with intel-fpga-fme.N/pr/interface_id and intel-fpga-port.N. */
  addOpaeCard(spec: IntelCardSpec): { portDir: string; fmeDir?: string };
  /** An Alveo card: management PF (xclmgmt) and user PF (xocl) with rom.0 and a render node. */
  addAlveoCard(spec: AlveoSpec): { userDir: string };
  /** Writes an executable script file (for fake programming commands). */
  writeScript(path: string, body: string): void;
}

/** One Intel card (or, with `physfn`, a VF exposing only a port). */
export interface IntelCardSpec {
  readonly address: string;
  readonly index: number;
  readonly numaNode?: number;
  /** Omitted for a VF (no FME). */
  readonly interfaceId?: string;
  readonly afuId: string;
  /** The PF of a VF. */
  readonly physfn?: string;
  readonly errors?: string;
  /** The bridge above the card (added before); omitted = directly under the root complex. */
  readonly parent?: string;
  readonly iommuGroup?: number;
}

/** One Alveo card. */
export interface AlveoSpec {
  /** Slot, e.g. "0000:3b:00" (functions .0 mgmt, .1 user). */
  readonly slot: string;
  readonly numaNode?: number;
  readonly vbnv: string;
  readonly timestamp: string;
  readonly render: number;
  readonly instance: number;
}

/** Creates an empty two-socket FPGA machine in a temp dir. */
export function createFpgaFixture(): FpgaFixture {
  const fx = createSysfsFixture();
  fx.addNumaNode({ id: 0, cpus: '0-3', distances: [10, 21] });
  fx.addNumaNode({ id: 1, cpus: '4-7', distances: [21, 10] });
  const addPci = (spec: IntelCardSpec, device: string, driver: string): string =>
    addIntelPci(fx, spec, device, driver);
  return {
    ...fx,
    writeScript: (path, body) => {
      writeFileSync(path, body);
      chmodSync(path, 0o755);
    },
    addDflCard: (spec) => addDflCard(fx, spec),
    addOpaeCard: (spec) => {
      const pci = addPci(spec, spec.physfn ? '0x09c5' : '0x09c4', 'intel-fpga-pci');
      const dev = `${pci}/fpga/intel-fpga-dev.${spec.index}`;
      fx.linkTo(`class/fpga/intel-fpga-dev.${spec.index}`, dev);
      const portDir = `${dev}/intel-fpga-port.${spec.index}`;
      fx.write(`${portDir}/afu_id`, `${spec.afuId}\n`);
      fx.write(`${portDir}/dev`, `240:${spec.index}\n`);
      fx.write(`${portDir}/errors/errors`, `${spec.errors ?? '0x0'}\n`);
      fx.addDevNode(`/dev/intel-fpga-port.${spec.index}`, 240, spec.index);
      if (spec.interfaceId === undefined) return { portDir };
      const fmeDir = `${dev}/intel-fpga-fme.${spec.index}`;
      fx.write(`${fmeDir}/pr/interface_id`, `${spec.interfaceId}\n`);
      fx.write(`${fmeDir}/dev`, `241:${spec.index}\n`);
      fx.addDevNode(`/dev/intel-fpga-fme.${spec.index}`, 241, spec.index);
      return { portDir, fmeDir };
    },
    addAlveoCard: (spec) => {
      fx.addPciDevice({
        address: `${spec.slot}.0`,
        vendor: '0x10ee',
        device: '0x5000',
        class: '0x120000',
        driver: 'xclmgmt',
        numaNode: spec.numaNode ?? 0,
        attributes: { mgmt_pf: '', instance: String(spec.instance) },
      });
      const userDir = fx.addPciDevice({
        address: `${spec.slot}.1`,
        vendor: '0x10ee',
        device: '0x5001',
        class: '0x120000',
        driver: 'xocl',
        numaNode: spec.numaNode ?? 0,
        attributes: { user_pf: '', 'rom.0/VBNV': spec.vbnv, 'rom.0/timestamp': spec.timestamp },
      });
      fx.mkdir(`${userDir}/drm/renderD${spec.render}`);
      fx.addDevNode(`/dev/dri/renderD${spec.render}`, 226, spec.render);
      fx.addDevNode(`/dev/xclmgmt${spec.instance}`, 235, 0);
      return { userDir };
    },
  };
}

/** An Intel card's PCI function (PF, or VF with `physfn`). */
function addIntelPci(fx: SysfsFixture, spec: IntelCardSpec, device: string, driver: string): string {
  return fx.addPciDevice({
    address: spec.address,
    vendor: '0x8086',
    device,
    class: '0x120000',
    driver,
    numaNode: spec.numaNode ?? 0,
    ...(spec.physfn ? { physfn: spec.physfn } : { sriovTotalVfs: 1 }),
    ...(spec.parent !== undefined ? { parent: spec.parent } : {}),
    ...(spec.iommuGroup !== undefined ? { iommuGroup: spec.iommuGroup } : {}),
  });
}

/**
 * A DFL card on any sysfs fixture (what {@link FpgaFixture.addDflCard} does on its own machine): the PCI function
 * on dfl-pci, `fpga_region/region<N>` with `dfl-port.<N>` (`afu_id`, `errors/errors`) and, unless it is a VF,
 * `dfl-fme.<N>` (interface ID in its PR region's `compat_id`), and the /dev/dfl-port.N and /dev/dfl-fme.N nodes.
 */
export function addDflCard(fx: SysfsFixture, spec: IntelCardSpec): { portDir: string; fmeDir?: string } {
  const pci = addIntelPci(fx, spec, spec.physfn ? '0x09c5' : '0x09c4', 'dfl-pci');
  const region = `${pci}/fpga_region/region${spec.index}`;
  fx.linkTo(`class/fpga_region/region${spec.index}`, region);
  const portDir = `${region}/dfl-port.${spec.index}`;
  fx.write(`${portDir}/afu_id`, `${spec.afuId}\n`);
  fx.write(`${portDir}/id`, `${spec.index}\n`);
  fx.write(`${portDir}/dev`, `238:${spec.index}\n`);
  fx.write(`${portDir}/errors/errors`, `${spec.errors ?? '0x0'}\n`);
  fx.addDevNode(`/dev/dfl-port.${spec.index}`, 238, spec.index);
  if (spec.interfaceId === undefined) return { portDir };
  const fmeDir = `${region}/dfl-fme.${spec.index}`;
  fx.write(`${fmeDir}/dev`, `239:${spec.index}\n`);
  fx.write(`${fmeDir}/bitstream_id`, '0x124000200000367\n');
  fx.write(`${fmeDir}/ports_num`, '1\n');
  const sub = `${fmeDir}/dfl-fme-region.${spec.index}/fpga_region/region${spec.index + 100}`;
  fx.write(`${sub}/compat_id`, `${spec.interfaceId}\n`);
  fx.linkTo(`class/fpga_region/region${spec.index + 100}`, sub);
  fx.addDevNode(`/dev/dfl-fme.${spec.index}`, 239, spec.index);
  return { portDir, fmeDir };
}
