import type { ContainerAllocation, DeviceNode } from '@kdp/core';
import type { PooledFunction } from '../resources/assign-pools';
import { goJson, type GoJsonValue } from './go-json';
import { poolSelectors, type SriovPool } from '../config';

/** What one device contributes to a container, computed the way upstream's info providers do. */
export interface DeviceContribution {
  /** Device nodes, host paths under /dev (never the --dev-root prefix). */
  readonly devices: readonly DeviceNode[];
  /** Provider name → key/values, the device's entry in the `_INFO` variable. */
  readonly info: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Facts about the host that decide some contributions. */
export interface HostFacts {
  /** RDMA character devices per RDMA device. */
  readonly rdmaCharDevices: ReadonlyMap<string, readonly string[]>;
  /** Whether /dev/vhost-net and /dev/net/tun exist (upstream adds them only then). */
  readonly vhostNet: boolean;
}

const VFIO = '/dev/vfio/vfio';
const UIO_DRIVERS = new Set(['igb_uio', 'uio_pci_generic', 'uio']);

/** The RDMA devices a member hands over (and its device-info file names): only in an isRdma selector's pool. */
export function rdmaDevicesOf(member: PooledFunction, pool: SriovPool): readonly string[] {
  if (pool.deviceType !== 'netDevice') return [];
  return poolSelectors(pool)[member.selectorIndex]?.isRdma === true ? member.fn.rdmaDevices : [];
}

/** The device nodes and `_INFO` entry of one pool member. */
export function deviceContribution(
  member: PooledFunction,
  pool: SriovPool,
  host: HostFacts,
): DeviceContribution {
  const { fn } = member;
  const devices: DeviceNode[] = [];
  const info: Record<string, Record<string, string>> = { generic: { deviceID: fn.address } };
  if (fn.driver === 'vfio-pci') {
    devices.push({ hostPath: VFIO, containerPath: VFIO, permissions: 'rw' });
    const vfio: Record<string, string> = { mount: VFIO };
    if (fn.iommuGroup !== undefined) {
      const container = `/dev/vfio/${fn.iommuGroup}`;
      const hostPath = fn.noIommu ? `/dev/vfio/noiommu-${fn.iommuGroup}` : container;
      devices.push({ hostPath, containerPath: container, permissions: 'rw' });
      vfio['dev-mount'] = container;
    }
    info['vfio'] = vfio;
  } else if (fn.driver !== undefined && UIO_DRIVERS.has(fn.driver) && fn.uioDevices[0] !== undefined) {
    const node = `/dev/${fn.uioDevices[0]}`;
    devices.push({ hostPath: node, containerPath: node, permissions: 'rw' });
    info['uio'] = { mount: node };
  }
  if (pool.deviceType === 'netDevice') {
    const selector = poolSelectors(pool)[member.selectorIndex] ?? {};
    const rdmaDevices = rdmaDevicesOf(member, pool);
    if (rdmaDevices.length > 0) {
      const rdma: Record<string, string> = {};
      for (const name of rdmaDevices) {
        for (const path of host.rdmaCharDevices.get(name) ?? []) {
          devices.push({ hostPath: path, containerPath: path, permissions: 'rw' });
          const kind = /(uverbs|umad|issm|rdma_cm)/.exec(path)?.[1];
          if (kind !== undefined) rdma[kind] = path;
        }
      }
      rdma['rdma_dev'] = rdmaDevices.join(',');
      info['rdma'] = rdma;
    }
    if (selector.needVhostNet === true) {
      if (host.vhostNet) {
        devices.push({ hostPath: '/dev/vhost-net', containerPath: '/dev/vhost-net', permissions: 'rw' });
        devices.push({ hostPath: '/dev/net/tun', containerPath: '/dev/net/tun', permissions: 'rw' });
      }
      info['vhost'] = { 'net-mount': '/dev/vhost-net', 'tun-mount': '/dev/net/tun' };
    }
  }
  if (pool.additionalInfo !== undefined) {
    info['extra'] = { ...pool.additionalInfo['*'], ...pool.additionalInfo[fn.address] };
  }
  return { devices, info };
}

/** `PCIDEVICE_<PREFIX>_<NAME>`: dots become `_`, then upper case (exactly upstream's mangling; `-` stays). */
export function envVarName(resourceName: string): string {
  const slash = resourceName.indexOf('/');
  const prefix = resourceName.slice(0, slash);
  const name = resourceName.slice(slash + 1);
  return `PCIDEVICE_${prefix}_${name}`.replace(/\./g, '_').toUpperCase();
}

/**
 * One container's allocation, as upstream builds it: the devices' nodes de-duplicated by host path, the
 * comma-separated addresses in `PCIDEVICE_<PREFIX>_<NAME>` (request order) and the per-address JSON in
 * `PCIDEVICE_<PREFIX>_<NAME>_INFO`. No mounts.
 */
export function containerAllocation(
  resourceName: string,
  members: readonly PooledFunction[],
  pool: SriovPool,
  host: HostFacts,
): ContainerAllocation {
  const devices = new Map<string, DeviceNode>();
  const info: Record<string, GoJsonValue> = {};
  for (const member of members) {
    const contribution = deviceContribution(member, pool, host);
    for (const node of contribution.devices)
      if (!devices.has(node.hostPath)) devices.set(node.hostPath, node);
    info[member.fn.address] = contribution.info;
  }
  const env = envVarName(resourceName);
  return {
    envs: {
      [env]: members.map((member) => member.fn.address).join(','),
      [`${env}_INFO`]: goJson(info),
    },
    devices: [...devices.values()],
  };
}
