import type { ContainerAllocation, PluginDevice } from '@kdp/core';

/** How many device combinations one resource's memo holds before it starts over. */
const MAX_ENTRIES = 256;

/**
 * Wraps a pure allocate function of one resource's scan so that each combination of devices is worked out once:
 * the answer is kept per device IDs and reused while the devices are the very objects it was made for (a scan
 * makes new ones, and a new resource plan a new memo, so a change of devices or configuration is never answered
 * from an old entry). A throw is never kept.
 */
export function memoizeAllocation<P>(
  allocate: (devices: readonly PluginDevice<P>[]) => ContainerAllocation,
): (devices: readonly PluginDevice<P>[]) => ContainerAllocation {
  const memo = new Map<string, { devices: readonly PluginDevice<P>[]; allocation: ContainerAllocation }>();
  return (devices) => {
    const key =
      devices.length === 1 ? (devices[0] as PluginDevice<P>).id : devices.map((d) => d.id).join('\n');
    const kept = memo.get(key);
    if (kept !== undefined && kept.devices.every((device, i) => device === devices[i]))
      return kept.allocation;
    const allocation = allocate(devices);
    if (memo.size >= MAX_ENTRIES) memo.clear();
    memo.set(key, { devices: [...devices], allocation });
    return allocation;
  };
}
