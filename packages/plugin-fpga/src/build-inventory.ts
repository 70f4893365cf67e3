import type { DeviceNode, ExcludedDevice, PluginDevice } from '@kdp/core';
import { describeFpgaIdProblem } from './fpga-id';
import type { FpgaConfig, ProgrammingRule } from './fpga-config';
import type { AmdCard, FpgaScan, IntelPort } from './fpga-model';
import {
  afResourceName,
  amdResourceName,
  regionResourceName,
  type ResourceNameResult,
} from './resource-names';

/** What the plugin keeps with each advertised device for Allocate and PreStartContainer. */
export interface FpgaPayload {
  readonly vendor: 'intel' | 'amd';
  /** Intel: the ports of this device (one in af mode, every port of the region in region mode). */
  readonly ports: readonly IntelPort[];
  readonly card?: AmdCard;
  /** Intel: the interface ID of the region. */
  readonly interfaceId?: string;
  /** Intel af mode: the loaded AFU. */
  readonly afuId?: string;
  /** Device nodes handed to a container. */
  readonly nodes: readonly DeviceNode[];
  readonly pciAddress?: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** Why the device is unhealthy. */
  readonly problems: readonly string[];
}

/** One resource and its devices. */
export interface InventoryResource {
  readonly name: string;
  readonly vendor: 'intel' | 'amd';
  /** Set for a region resource with a programming rule. */
  readonly programming?: ProgrammingRule;
  readonly devices: readonly PluginDevice<FpgaPayload>[];
}

/** Result of {@link buildInventory}: resources sorted by name, devices by ID. */
export interface FpgaInventory {
  readonly resources: readonly InventoryResource[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}

type Config = Pick<FpgaConfig, 'mode' | 'amd' | 'programming'>;

/**
 * Groups a scan into resources by mode: af (one resource per interface/AFU pair, a device per port), region and
 * regiondevel (one resource per interface ID, a device per region holding all its ports), and AMD cards by shell.
 * A device whose name cannot be made (empty or malformed ID, invalid name) goes to `excluded` with the reason.
 */
export function buildInventory(scan: FpgaScan, config: Config): FpgaInventory {
  const excluded: ExcludedDevice[] = [...scan.excluded];
  const resources = new Map<string, { vendor: 'intel' | 'amd'; devices: PluginDevice<FpgaPayload>[] }>();
  const add = (
    named: ResourceNameResult,
    path: string,
    vendor: 'intel' | 'amd',
    device: PluginDevice<FpgaPayload>,
  ): void => {
    if (!named.ok) {
      excluded.push({ path, reason: named.reason });
      return;
    }
    const entry = resources.get(named.name) ?? { vendor, devices: [] };
    entry.devices.push(device);
    resources.set(named.name, entry);
  };

  if (config.mode === 'af') {
    for (const port of scan.intel) {
      const path = `/sys/${port.sysfsPath}`;
      if (!port.interfaceId.ok) {
        excluded.push({
          path,
          reason: `${describeFpgaIdProblem('interface id', port.interfaceId)} (${port.interfaceIdPath}); no valid af- name`,
        });
        continue;
      }
      if (!port.afuId.ok) {
        excluded.push({ path, reason: `${describeFpgaIdProblem('afu_id', port.afuId)}; no valid af- name` });
        continue;
      }
      const ifId = port.interfaceId.id;
      const afuId = port.afuId.id;
      add(afResourceName(ifId, afuId), path, 'intel', intelDevice(port.name, [port], ifId, afuId, false));
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
      add(
        regionResourceName(ifId),
        path,
        'intel',
        intelDevice(first.container, ports, ifId, undefined, config.mode === 'regiondevel'),
      );
    }
  }

  for (const card of scan.amd) {
    add(
      amdResourceName(card.vbnv, card.timestamp),
      `/sys/bus/pci/devices/${card.address}`,
      'amd',
      amdDevice(card, config.amd.includeManagement),
    );
  }

  const rules = new Map(
    config.programming.map((rule) => [regionResourceName(rule.interfaceId), rule] as const),
  );
  const ruleByName = new Map(
    [...rules].flatMap(([named, rule]) => (named.ok ? [[named.name, rule] as const] : [])),
  );
  const list: InventoryResource[] = [...resources]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => {
      const rule = ruleByName.get(name);
      return {
        name,
        vendor: entry.vendor,
        ...(rule ? { programming: rule } : {}),
        devices: [...entry.devices].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
      };
    });
  return { resources: list, excluded, warnings: scan.warnings };
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
  const problems = ports.flatMap((p) => p.problems.map((problem) => `${p.name}: ${problem}`));
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
  return {
    id,
    health: problems.length === 0 ? 'Healthy' : 'Unhealthy',
    numaNodes,
    pciePath: pci?.pciePath ?? [],
    payload: {
      vendor: 'intel',
      ports,
      interfaceId,
      ...(afuId !== undefined ? { afuId } : {}),
      nodes,
      ...(pci !== undefined ? { pciAddress: pci.address } : {}),
      attributes,
      problems,
    },
  };
}

function amdDevice(card: AmdCard, includeManagement: boolean): PluginDevice<FpgaPayload> {
  const nodes: DeviceNode[] = [];
  if (includeManagement && card.mgmtNode !== undefined) {
    nodes.push({ containerPath: card.mgmtNode, hostPath: card.mgmtNode, permissions: 'rwm' });
  }
  if (card.renderNode !== undefined)
    nodes.push({ containerPath: card.renderNode, hostPath: card.renderNode, permissions: 'rwm' });
  const problems = card.problems.filter(
    (p) => includeManagement || card.mgmtNode === undefined || !p.startsWith(card.mgmtNode),
  );
  return {
    id: card.address,
    health: problems.length === 0 ? 'Healthy' : 'Unhealthy',
    numaNodes: card.pci.numaNodes,
    pciePath: card.pci.pciePath,
    payload: {
      vendor: 'amd',
      ports: [],
      card,
      nodes,
      pciAddress: card.address,
      attributes: {
        vendor: card.pci.vendor ?? '0x10ee',
        ...(card.pci.device !== undefined ? { device: card.pci.device } : {}),
        shell: card.vbnv,
        timestamp: card.timestamp,
        ...(card.mgmtAddress !== undefined ? { managementFunction: card.mgmtAddress } : {}),
        ...(card.pci.physfn !== undefined ? { physfn: card.pci.physfn } : {}),
      },
      problems,
    },
  };
}
