import {
  topologyPreferredAllocation,
  type DeviceNode,
  type PluginDevice,
  type PreStartContext,
  type ResourceClaimConfig,
} from '@kdp/core';
import type { ExcludedDevice, ResourceSet, ResourceSpec } from '@kdp/core/plugin';
import { allocateFpgas } from '../allocate/allocate-fpgas';
import type { FpgaConfig, ProgrammingRule } from '../config';
import { describeFpgaIdProblem } from '../scan/parse-fpga-id';
import type { FpgaPciInfo } from '../scan/read-pci-info';
import type { AmdCard } from '../scan/scan-amd-cards';
import type { FpgaScan } from '../scan/scan-fpgas';
import type { IntelPort } from '../scan/scan-intel-ports';
import type { FpgaPayload } from './fpga-payload';
import {
  afResourceName,
  amdResourceName,
  INTEL_FPGA_DOMAIN,
  regionResourceName,
  type ResourceNameResult,
} from './resource-names';

/** Loads a rule's AFU into the devices of a container about to start (a region resource's PreStartContainer). */
export type RegionPreparer = (rule: ProgrammingRule, context: PreStartContext<FpgaPayload>) => Promise<void>;

/** The claim configuration (DRA) of a region resource, given its programming rule. */
export type RegionClaimConfig = (rule: ProgrammingRule | undefined) => ResourceClaimConfig<FpgaPayload>;

/** The resources of one scan (sorted by name, devices by ID), with what was seen but not advertised. */
export interface FpgaResourcePlan extends ResourceSet {
  readonly resources: readonly ResourceSpec<FpgaPayload>[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

type Config = Pick<FpgaConfig, 'mode' | 'amd' | 'programming'> & Partial<Pick<FpgaConfig, 'anchor'>>;

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Groups a scan into resources by mode: af (one resource per interface/AFU pair, a device per port), region and
 * regiondevel (one resource per interface ID, a device per region holding all its ports), and AMD cards by shell.
 * A device whose name cannot be made (empty or malformed ID, invalid name) goes to `excluded` with the reason.
 * A region resource with a programming rule gets a PreStartContainer hook calling `prepare` (when given).
 */
export function planResources(
  scan: FpgaScan,
  config: Config,
  prepare?: RegionPreparer,
  claimConfig?: RegionClaimConfig,
): FpgaResourcePlan {
  const excluded: ExcludedDevice[] = [...scan.excluded];
  const groups = new Map<string, PluginDevice<FpgaPayload>[]>();
  const add = (named: ResourceNameResult, path: string, device: PluginDevice<FpgaPayload>): void => {
    if (!named.ok) excluded.push({ path, reason: named.reason });
    else groups.set(named.name, [...(groups.get(named.name) ?? []), device]);
  };

  if (config.mode === 'af') {
    for (const port of scan.intel) {
      const path = `/sys/${port.sysfsPath}`;
      if (!port.interfaceId.ok) {
        excluded.push({
          path,
          reason: `${describeFpgaIdProblem('interface id', port.interfaceId)} (${port.interfaceIdPath}); no valid af- name`,
        });
      } else if (!port.afuId.ok) {
        excluded.push({ path, reason: `${describeFpgaIdProblem('afu_id', port.afuId)}; no valid af- name` });
      } else {
        const [ifId, afuId] = [port.interfaceId.id, port.afuId.id];
        add(afResourceName(ifId, afuId), path, intelDevice(port.name, [port], ifId, afuId, false));
      }
    }
  } else {
    const regions = new Map<string, IntelPort[]>();
    for (const port of scan.intel) {
      const key = `${port.layout}/${port.container}`;
      regions.set(key, [...(regions.get(key) ?? []), port]);
    }
    for (const ports of regions.values()) {
      const first = ports[0] as IntelPort;
      const path = `/sys/${first.sysfsPath.slice(0, first.sysfsPath.lastIndexOf('/'))}`;
      if (!first.interfaceId.ok) {
        excluded.push({
          path,
          reason: `${describeFpgaIdProblem('interface id', first.interfaceId)} (${first.interfaceIdPath}); it would make the invalid name fpga.intel.com/region-`,
        });
        continue;
      }
      const ifId = first.interfaceId.id;
      const withFme = config.mode === 'regiondevel';
      // Intel names a region device after its FME (dfl-fme.0); ours after the region (region0).
      const id = config.anchor !== undefined ? (first.fme?.name ?? first.container) : first.container;
      add(regionResourceName(ifId), path, intelDevice(id, ports, ifId, undefined, withFme));
    }
  }
  for (const card of scan.amd) {
    const path = `/sys/bus/pci/devices/${card.address}`;
    add(amdResourceName(card.vbnv, card.timestamp), path, amdDevice(card, config.amd.includeManagement));
  }

  // NUMA first, then PCIe distance, on every resource (one with a single device today may get more on a hot-plug).
  const preferred = topologyPreferredAllocation<FpgaPayload>(
    scan.numaDistances !== undefined ? { distances: scan.numaDistances } : {},
  );
  const asIntel = config.anchor !== undefined ? { region: config.mode === 'region' } : undefined;
  const resources = [...groups.keys()].sort().map((name): ResourceSpec<FpgaPayload> => {
    const rule = config.programming.find((r) => name === `${INTEL_FPGA_DOMAIN}/region-${r.interfaceId}`);
    const devices = (groups.get(name) ?? []).sort(byId);
    return {
      name,
      devices: rule
        ? devices.map((d) => ({ ...d, attributes: { ...d.attributes, programmedAfuId: rule.afuId } }))
        : devices,
      allocate: ({ devices: held }) => allocateFpgas(held, rule?.afuId, asIntel),
      preferredAllocation: preferred,
      ...(rule && prepare ? { preStartContainer: (context) => prepare(rule, context) } : {}),
      // Under DRA an Intel region takes a claim's own bitstream (FpgaConfig).
      ...(claimConfig && name.startsWith(`${INTEL_FPGA_DOMAIN}/region-`)
        ? { dra: { config: claimConfig(rule) } }
        : {}),
    };
  });
  return { resources, excluded, warnings: scan.warnings };
}

/** What both vendors' devices share: health from the problems, the PCIe path and PCI address. */
function fpgaDevice(
  id: string,
  problems: readonly string[],
  pci: FpgaPciInfo | undefined,
  rest: Required<Pick<PluginDevice<FpgaPayload>, 'numaNodes' | 'attributes' | 'payload'>>,
): PluginDevice<FpgaPayload> {
  return {
    id,
    health: problems.length === 0 ? 'Healthy' : 'Unhealthy',
    ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
    pciePath: pci?.pciePath ?? [],
    ...(pci !== undefined ? { pciAddress: pci.address } : {}),
    ...rest,
  };
}

function intelDevice(
  id: string,
  ports: readonly IntelPort[],
  interfaceId: string,
  afuId: string | undefined,
  withFme: boolean,
): PluginDevice<FpgaPayload> {
  const nodes: DeviceNode[] = ports.map((p) => ({
    containerPath: p.devNode,
    hostPath: p.devNode,
    permissions: 'rw',
  }));
  const fme = ports[0]?.fme;
  if (withFme && fme !== undefined)
    nodes.push({ containerPath: fme.devNode, hostPath: fme.devNode, permissions: 'rw' });
  const pci = ports[0]?.pci;
  const numaNodes = [...new Set(ports.flatMap((p) => p.pci?.numaNodes ?? []))].sort((a, b) => a - b);
  const loaded = ports.map((p) => (p.afuId.ok ? p.afuId.id : '')).join(',');
  const attributes: Record<string, string> = {
    vendor: pci?.vendor ?? '0x8086',
    ...(pci?.device !== undefined ? { device: pci.device } : {}),
    layout: ports[0]?.layout ?? 'dfl',
    interfaceId,
    afuId: afuId ?? loaded,
    ports: ports.map((p) => p.name).join(','),
    ...(fme !== undefined ? { fme: fme.name } : {}),
    ...(pci?.physfn !== undefined ? { physfn: pci.physfn } : {}),
  };
  const problems = ports.flatMap((p) => p.problems.map((problem) => `${p.name}: ${problem}`));
  const payload = {
    vendor: 'intel' as const,
    ports,
    interfaceId,
    ...(afuId !== undefined ? { afuId } : {}),
    nodes,
  };
  return fpgaDevice(id, problems, pci, { numaNodes, attributes, payload });
}

function amdDevice(card: AmdCard, includeManagement: boolean): PluginDevice<FpgaPayload> {
  const nodes: DeviceNode[] = [];
  if (includeManagement && card.mgmtNode !== undefined)
    nodes.push({ containerPath: card.mgmtNode, hostPath: card.mgmtNode, permissions: 'rwm' });
  if (card.renderNode !== undefined)
    nodes.push({ containerPath: card.renderNode, hostPath: card.renderNode, permissions: 'rwm' });
  // A missing management node matters only when it is handed out.
  const problems = card.problems.filter(
    (p) => includeManagement || card.mgmtNode === undefined || !p.startsWith(card.mgmtNode),
  );
  const attributes: Record<string, string> = {
    vendor: card.pci.vendor ?? '0x10ee',
    ...(card.pci.device !== undefined ? { device: card.pci.device } : {}),
    shell: card.vbnv,
    timestamp: card.timestamp,
    ...(card.mgmtAddress !== undefined ? { managementFunction: card.mgmtAddress } : {}),
    ...(card.pci.physfn !== undefined ? { physfn: card.pci.physfn } : {}),
  };
  const payload = { vendor: 'amd' as const, ports: [], card, nodes };
  return fpgaDevice(card.address, problems, card.pci, { numaNodes: card.pci.numaNodes, attributes, payload });
}
