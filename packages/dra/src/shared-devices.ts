import type { AnyResourceDeclaration, PluginDevice } from '@kdp/core';
import type { SliceDevice } from './pool-slices';

/** The devices a resource publishes under DRA: its sharing hook's list (one per shared device), else its own. */
export function draDevices(
  declaration: AnyResourceDeclaration,
  list: readonly PluginDevice<unknown>[],
): readonly PluginDevice<unknown>[] {
  return declaration.dra?.sharing?.devices?.(list) ?? list;
}

/**
 * A slice device with the resource's shared capacities (KEP 5075) when its sharing hook gives the device some:
 * `allowMultipleAllocations` and the capacities with their request policies; else the device as it is.
 */
export function withSharedCapacity(
  declaration: AnyResourceDeclaration,
  device: PluginDevice<unknown>,
  slice: SliceDevice,
): SliceDevice {
  const shared = declaration.dra?.sharing?.capacity(device);
  if (shared === undefined || Object.keys(shared).length === 0) return slice;
  return { ...slice, allowMultipleAllocations: true, capacity: { ...slice.capacity, ...shared } };
}
