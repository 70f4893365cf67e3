import type { LifecycleLogger } from '@kdp/base';
import type { AnyResourceDeclaration, DraPool, DraPoolDevice, PluginDevice } from '@kdp/core';
import { toSliceDevice } from './dra-serve-mode-devices';
import { messageOf } from './message-of';
import type { SliceDevice } from './pool-slices';

/**
 * The DRA pool of a resource for its source's device list: what its `dra.pool` hook answers (partitions as devices
 * of their own, counter sets), or the devices as they are. A hook that throws publishes nothing for the resource
 * (logged): devices without their counters would let the scheduler hand out overlapping partitions.
 */
export function draPool(
  declaration: AnyResourceDeclaration,
  list: readonly PluginDevice<unknown>[],
  logger: LifecycleLogger,
): DraPool<unknown> {
  const hook = declaration.dra?.pool;
  if (hook === undefined) return { devices: list };
  try {
    return hook(list);
  } catch (error) {
    logger.error(
      { resource: declaration.name, error: messageOf(error) },
      'the DRA pool of the resource could not be built; none of its devices is published',
    );
    return { devices: [] };
  }
}

/** A pool device as a ResourceSlice device ({@link toSliceDevice}) with what it consumes of the pool's counters. */
export function toPoolSliceDevice(resource: string, device: DraPoolDevice<unknown>): SliceDevice {
  const base = toSliceDevice(resource, device);
  const uses = device.consumesCounters ?? [];
  return uses.length > 0 ? { ...base, consumesCounters: uses } : base;
}
