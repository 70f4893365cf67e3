import type { PciDevice } from '@kdp/topology';
import type { Gpu } from './gpu';
import { parseDeviceFileMinor, parseMigMinors, type MigMinors } from './parse-mig-minors';
import { parseNvidiaInformation } from './parse-nvidia-information';
import { boundToDriver, exclude, nodeProblems, pciGpu, presentNodes, type ScanContext } from './scan-context';

/** Control nodes every NVIDIA container needs (missing = unhealthy). */
const REQUIRED_SHARED = ['/dev/nvidiactl'];
/** Control nodes given where present, as NVIDIA's plugin does. */
const OPTIONAL_SHARED = ['/dev/nvidia-uvm', '/dev/nvidia-uvm-tools', '/dev/nvidia-modeset'];

/** Reads NVIDIA's MIG capability minors once per scan (undefined when the file is absent). */
export async function readMigMinors(ctx: ScanContext): Promise<MigMinors | undefined> {
  const text = await ctx.procfs.read('driver/nvidia-caps/mig-minors');
  return text === undefined ? undefined : parseMigMinors(text);
}

/**
 * One NVIDIA PCI function: the UUID and minor from /proc/driver/nvidia/gpus/<bdf>/information, its nodes, and
 * its MIG devices (each carrying the whole GPU, for `migStrategy: none`) when MIG instances exist under
 * /proc/driver/nvidia/capabilities/gpu<minor>/mig.
 */
export async function scanNvidia(
  ctx: ScanContext,
  pci: PciDevice,
  migMinors: MigMinors | undefined,
): Promise<Gpu[]> {
  if (!boundToDriver(ctx, pci, ['nvidia'], 'the nvidia driver is not loaded for this GPU')) return [];
  const infoPath = `driver/nvidia/gpus/${pci.address}/information`;
  const text = await ctx.procfs.read(infoPath);
  if (text === undefined) {
    exclude(ctx, pci, `/proc/${infoPath} is not readable (the nvidia driver has not initialised this GPU)`);
    return [];
  }
  const info = parseNvidiaInformation(text);
  if (info.uuid === undefined || info.minor === undefined) {
    exclude(
      ctx,
      pci,
      `/proc/${infoPath} has no valid ${info.uuid === undefined ? 'GPU UUID' : 'Device Minor'}`,
    );
    return [];
  }
  const base = pciGpu(pci, info.model ?? `NVIDIA GPU ${pci.device ?? ''}`.trim());
  const attributes = { ...base.attributes, uuid: info.uuid, minor: String(info.minor) };
  const common = {
    ...base,
    sharedNodes: [...REQUIRED_SHARED, ...(await presentNodes(ctx, OPTIONAL_SHARED))],
  };
  const gpuNode = `/dev/nvidia${info.minor}`;
  const baseProblems = await nodeProblems(ctx, [gpuNode, ...REQUIRED_SHARED]);

  const whole: Gpu = {
    ...common,
    kind: 'nvidia',
    id: info.uuid,
    deviceNodes: [gpuNode],
    attributes,
    problems: baseProblems,
  };
  const { instances, layout } = await scanMig(ctx, info.minor, migMinors);
  if (instances.length === 0) return [whole];
  // The MIG devices; nvidia.migStrategy decides later whether they or the whole GPU are advertised.
  const out: Gpu[] = [];
  for (const { gi, ci, giMinor, ciMinor } of instances) {
    const capNodes = [`/dev/nvidia-caps/nvidia-cap${giMinor}`, `/dev/nvidia-caps/nvidia-cap${ciMinor}`];
    out.push({
      ...common,
      kind: 'nvidia-mig',
      id: `MIG-${info.uuid}/${gi}/${ci}`,
      deviceNodes: [gpuNode, ...capNodes],
      attributes: { ...attributes, mig: `gi${gi}/ci${ci}`, parent: info.uuid },
      problems: [...baseProblems, ...(await nodeProblems(ctx, capNodes))],
      mig: { gi, ci, parent: whole, layout },
    });
  }
  return out;
}

interface MigInstance {
  readonly gi: number;
  readonly ci: number;
  readonly giMinor: number;
  readonly ciMinor: number;
}

/**
 * Existing GPU/compute instances of one GPU, with their capability minors, and the layout procfs lists (every
 * instance, also one whose minor is unknown: the layout changes only when instances are created or destroyed).
 */
async function scanMig(
  ctx: ScanContext,
  minor: number,
  migMinors: MigMinors | undefined,
): Promise<{ instances: MigInstance[]; layout: string }> {
  const base = `driver/nvidia/capabilities/gpu${minor}/mig`;
  /** A capability's minor (`gi1`, `gi1/ci0`): from the mig-minors table, else from its access file. */
  const capMinor = async (path: string): Promise<number | undefined> => {
    const fromTable = migMinors?.get(`gpu${minor}/${path}/access`);
    if (fromTable !== undefined) return fromTable;
    const text = await ctx.procfs.read(`${base}/${path}/access`);
    return text === undefined ? undefined : parseDeviceFileMinor(text);
  };
  const out: MigInstance[] = [];
  const listed: [number, number][] = [];
  ctx.procfsDirs.push(base);
  for (const giName of await ctx.procfs.list(base)) {
    const gi = /^gi(\d{1,3})$/.exec(giName)?.[1];
    if (gi === undefined) continue;
    const giMinor = await capMinor(`gi${gi}`);
    ctx.procfsDirs.push(`${base}/gi${gi}`);
    for (const ciName of await ctx.procfs.list(`${base}/gi${gi}`)) {
      const ci = /^ci(\d{1,3})$/.exec(ciName)?.[1];
      if (ci === undefined) continue;
      listed.push([Number(gi), Number(ci)]);
      const ciMinor = await capMinor(`gi${gi}/ci${ci}`);
      if (giMinor === undefined || ciMinor === undefined) {
        ctx.warnings.push(`nvidia gpu${minor} MIG gi${gi}/ci${ci}: capability minor unknown; skipped`);
        continue;
      }
      out.push({ gi: Number(gi), ci: Number(ci), giMinor, ciMinor });
    }
  }
  const layout = listed
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([gi, ci]) => `gi${gi}/ci${ci}`)
    .join(',');
  return { instances: out.sort((a, b) => a.gi - b.gi || a.ci - b.ci), layout };
}
