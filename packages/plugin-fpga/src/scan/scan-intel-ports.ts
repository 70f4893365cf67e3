import type { ExcludedDevice } from '@kdp/core/plugin';
import type { Host, NumaTopology, Sysfs } from '@kdp/topology';
import { parseErrorRegister } from '../health/parse-error-register';
import { parseFpgaId, type FpgaIdRead } from './parse-fpga-id';
import { pciAddressOfPath, readPciInfo, type FpgaPciInfo } from './read-pci-info';

/** Which Intel driver stack exposes a port. */
export type IntelLayout = 'dfl' | 'opae';

/** One Intel accelerator port (`dfl-port.N` / `intel-fpga-port.N`) as read from sysfs. */
export interface IntelPort {
  readonly layout: IntelLayout;
  /** `dfl-port.0`, `intel-fpga-port.1`. */
  readonly name: string;
  /** The container holding the port: `region0` (DFL) or `intel-fpga-dev.0` (OPAE). */
  readonly container: string;
  /** Root-relative sysfs directory of the port. */
  readonly sysfsPath: string;
  /** Host path of the port's character device. */
  readonly devNode: string;
  /** The FME that carries the region's interface ID (the PF's FME for a VF), when found. */
  readonly fme?: { readonly name: string; readonly devNode: string };
  readonly afuId: FpgaIdRead;
  readonly interfaceId: FpgaIdRead;
  /** Where the interface ID was read, for messages. */
  readonly interfaceIdPath: string;
  /** The interface ID file, root-relative, when the port has an FME (its own or its PF's). */
  readonly interfaceIdFile?: string;
  /** Why the port is unhealthy; empty when healthy. */
  readonly problems: readonly string[];
  readonly pci?: FpgaPciInfo;
}

/** How one Intel driver stack lays out its sysfs tree. */
interface IntelLayoutSpec {
  readonly layout: IntelLayout;
  /** Class directory listing the containers. */
  readonly classDir: string;
  readonly container: RegExp;
  readonly fme: RegExp;
  readonly port: RegExp;
  /** Root-relative path of the interface ID file of an FME directory (first match). */
  interfaceIdPath(sysfs: Sysfs, fmeDir: string): Promise<string>;
}

const DFL: IntelLayoutSpec = {
  layout: 'dfl',
  classDir: 'class/fpga_region',
  container: /^region\d+$/,
  fme: /^dfl-fme\.\d+$/,
  port: /^dfl-port\.\d+$/,
  // dfl-fme.0/dfl-fme-region.0/fpga_region/region1/compat_id
  interfaceIdPath: async (sysfs, fmeDir) => {
    for (const sub of (await sysfs.list(fmeDir)).filter((e) => /^dfl-fme-region\.\d+$/.test(e))) {
      for (const region of await sysfs.list(`${fmeDir}/${sub}/fpga_region`)) {
        return `${fmeDir}/${sub}/fpga_region/${region}/compat_id`;
      }
    }
    return `${fmeDir}/dfl-fme-region.*/fpga_region/region*/compat_id`;
  },
};

const OPAE: IntelLayoutSpec = {
  layout: 'opae',
  classDir: 'class/fpga',
  container: /^intel-fpga-dev\.\d+$/,
  fme: /^intel-fpga-fme\.\d+$/,
  port: /^intel-fpga-port\.\d+$/,
  interfaceIdPath: async (_sysfs, fmeDir) => `${fmeDir}/pr/interface_id`,
};

interface Container {
  readonly spec: IntelLayoutSpec;
  readonly name: string;
  readonly dir: string;
  readonly fme?: { readonly name: string; readonly interfaceId: FpgaIdRead; readonly idPath: string };
  readonly ports: readonly string[];
  readonly pci?: FpgaPciInfo;
}

/** Result of {@link scanIntelPorts}. */
export interface IntelScan {
  readonly ports: IntelPort[];
  readonly excluded: ExcludedDevice[];
  readonly warnings: string[];
  /** PCI functions that carry a DFL/OPAE container (so the PCI pass does not list them as unclaimed). */
  readonly claimed: Set<string>;
}

/**
 * Finds every Intel FPGA port in the DFL (`/sys/class/fpga_region/regionN/dfl-{fme,port}.N`) and OPAE legacy
 * (`/sys/class/fpga/intel-fpga-dev.N/intel-fpga-{fme,port}.N`) layouts. A VF's port (no FME of its own) takes
 * the interface ID of its PF's FME. Never throws: unreadable entries become warnings or `excluded` entries.
 */
export async function scanIntelPorts(host: Host, numa: NumaTopology): Promise<IntelScan> {
  const { sysfs } = host;
  const warnings: string[] = [];
  const excluded: ExcludedDevice[] = [];
  const claimed = new Set<string>();
  const containers: Container[] = [];
  // DFL (in-tree) first, then the OPAE legacy driver.
  for (const spec of [DFL, OPAE]) {
    for (const name of await sysfs.list(spec.classDir)) {
      if (!spec.container.test(name)) continue;
      const where = await sysfs.locate(`${spec.classDir}/${name}`);
      if (!where.ok) {
        warnings.push(`${where.message}; skipped`);
        continue;
      }
      const dir = where.path;
      // A DFL FME's own PR region (…/dfl-fme.0/dfl-fme-region.0/fpga_region/region1) is not a card.
      if (/\/dfl-fme-region\.\d+\//.test(dir)) continue;
      const entries = await sysfs.list(dir);
      const fmeName = entries.find((e) => spec.fme.test(e));
      const ports = entries.filter((e) => spec.port.test(e));
      const address = pciAddressOfPath(dir);
      if (address !== undefined) claimed.add(address);
      if (fmeName === undefined && ports.length === 0) {
        excluded.push({
          path: `/sys/${spec.classDir}/${name}`,
          reason: `no FME or port device under it (is the ${spec.layout === 'dfl' ? 'dfl_fme/dfl_afu' : 'intel-fpga'} driver loaded?)`,
        });
        continue;
      }
      const pci = address === undefined ? undefined : await readPciInfo(sysfs, address, numa, warnings);
      let fme: Container['fme'];
      if (fmeName !== undefined) {
        const idPath = await spec.interfaceIdPath(sysfs, `${dir}/${fmeName}`);
        fme = { name: fmeName, idPath, interfaceId: parseFpgaId(await sysfs.read(idPath)) };
      }
      containers.push({ spec, name, dir, ports, ...(fme ? { fme } : {}), ...(pci ? { pci } : {}) });
    }
  }
  const byAddress = new Map(containers.flatMap((c) => (c.pci ? [[c.pci.address, c] as const] : [])));
  const ports: IntelPort[] = [];
  for (const container of containers) {
    // A VF exposes only a port: its interface ID is the PF's.
    const owner =
      container.fme ??
      (container.pci?.physfn !== undefined ? byAddress.get(container.pci.physfn)?.fme : undefined);
    for (const portName of container.ports) {
      ports.push(await readPort(host, container, portName, owner, warnings));
    }
  }
  return { ports, excluded, warnings, claimed };
}

async function readPort(
  { sysfs, devfs }: Host,
  container: Container,
  portName: string,
  owner: Container['fme'],
  warnings: string[],
): Promise<IntelPort> {
  const dir = `${container.dir}/${portName}`;
  const afuId = parseFpgaId(await sysfs.read(`${dir}/afu_id`));
  const devNode = `/dev/${portName}`;
  const problems: string[] = [];
  if (afuId.ok && afuId.allOnes) problems.push('afu_id is all f (the port is not usable)');
  const interfaceId: FpgaIdRead = owner?.interfaceId ?? { ok: false, problem: 'missing' };
  if (interfaceId.ok && interfaceId.allOnes) problems.push('interface id is all f (the FPGA is not usable)');
  const errorsText = await sysfs.read(`${dir}/errors/errors`);
  if (errorsText !== undefined) {
    const errors = parseErrorRegister(errorsText);
    if (errors === undefined) {
      warnings.push(
        `${dir}/errors/errors: ${JSON.stringify(errorsText.slice(0, 40))} is not hex; port marked unhealthy`,
      );
      problems.push('port error register is unreadable');
    } else if (errors !== 0n) {
      problems.push(`port error register errors/errors is 0x${errors.toString(16)}`);
    }
  }
  const node = await devfs.node(devNode);
  if (!node.ok) problems.push(node.reason);
  return {
    layout: container.spec.layout,
    name: portName,
    container: container.name,
    sysfsPath: dir,
    devNode,
    ...(owner ? { fme: { name: owner.name, devNode: `/dev/${owner.name}` } } : {}),
    afuId,
    interfaceId,
    interfaceIdPath: owner ? `/sys/${owner.idPath}` : `/sys/${container.dir}: no FME, and no FME on a PF`,
    ...(owner ? { interfaceIdFile: owner.idPath } : {}),
    problems,
    ...(container.pci ? { pci: container.pci } : {}),
  };
}
