import type { PluginDevice } from '@kdp/core';
import type { Assignment, PooledFunction } from './assign-pools';
import type { SriovPool } from './sriov-config';

/** What every advertised device carries for Allocate and GetPreferredAllocation. */
export interface SriovPayload {
  readonly resourceName: string;
  readonly pool: SriovPool;
  readonly member: PooledFunction;
}

/** The kubelet devices of one pool member (ID = PCI address; NUMA unless the pool sets excludeTopology). */
export function toPluginDevice(
  resourceName: string,
  pool: SriovPool,
  member: PooledFunction,
): PluginDevice<SriovPayload> {
  const numa = member.fn.numaNode;
  return {
    id: member.fn.address,
    health: member.healthy ? 'Healthy' : 'Unhealthy',
    numaNodes: pool.excludeTopology === true || numa === undefined ? [] : [numa],
    pciePath: member.fn.pciePath,
    payload: { resourceName, pool, member },
  };
}

/** Every pool's device list, by resource name (pools without members get an empty list). */
export function poolDevices(assignment: Assignment): Map<string, PluginDevice<SriovPayload>[]> {
  const out = new Map<string, PluginDevice<SriovPayload>[]>();
  for (const { resourceName, pool, members } of assignment.pools) {
    if (pool.deviceType === 'auxNetDevice') continue;
    out.set(
      resourceName,
      members.map((member) => toPluginDevice(resourceName, pool, member)),
    );
  }
  return out;
}

/**
 * Keeps devices that vanished from a pool (VF removed by an sriov_numvfs change, device unplugged) for
 * `graceMs` as Unhealthy, so the kubelet sees them fail rather than silently disappear; returns the lists
 * to advertise and updates `vanished` (resource → id → first time missing).
 */
export function withVanished(
  current: ReadonlyMap<string, PluginDevice<SriovPayload>[]>,
  previous: ReadonlyMap<string, readonly PluginDevice<SriovPayload>[]>,
  vanished: Map<string, Map<string, number>>,
  now: number,
  graceMs: number,
): Map<string, PluginDevice<SriovPayload>[]> {
  const out = new Map<string, PluginDevice<SriovPayload>[]>();
  for (const [resource, devices] of current) {
    const ids = new Set(devices.map((d) => d.id));
    const gone = vanished.get(resource) ?? new Map<string, number>();
    for (const id of ids) gone.delete(id);
    const list = [...devices];
    for (const old of previous.get(resource) ?? []) {
      if (ids.has(old.id)) continue;
      const since = gone.get(old.id) ?? now;
      if (now - since >= graceMs) {
        gone.delete(old.id);
        continue;
      }
      gone.set(old.id, since);
      const payload = old.payload;
      list.push({
        ...old,
        health: 'Unhealthy',
        ...(payload !== undefined
          ? {
              payload: {
                ...payload,
                member: { ...payload.member, healthy: false, problem: 'device vanished' },
              },
            }
          : {}),
      });
    }
    vanished.set(resource, gone);
    list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    out.set(resource, list);
  }
  for (const resource of [...vanished.keys()]) if (!current.has(resource)) vanished.delete(resource);
  return out;
}
