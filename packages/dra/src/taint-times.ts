import type { Clock } from '@kdp/base';
import type { SliceDevice, SliceDeviceTaint } from './pool-slices';

/** When each taint of a driver's devices was added, so a republished slice keeps the same `timeAdded`. */
export interface TaintTimes {
  /**
   * The devices of `pool` with `timeAdded` set on each taint: the time it was first seen for that device with the
   * same key, value and effect, else now (RFC 3339, seconds). Taints the pool's devices no longer have are forgotten.
   */
  stamp(pool: string, devices: readonly SliceDevice[]): SliceDevice[];
  /** Forgets a pool's taints (its resource is gone). */
  forget(pool: string): void;
}

const identity = (device: string, taint: SliceDeviceTaint): string =>
  JSON.stringify([device, taint.key, taint.value ?? '', taint.effect]);

/** A time as the API writes a `metav1.Time`: RFC 3339 in UTC, whole seconds. */
const rfc3339 = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Creates the {@link TaintTimes} of one driver, reading `clock` for new taints. */
export function createTaintTimes(clock: Clock): TaintTimes {
  const byPool = new Map<string, Map<string, string>>();
  return {
    stamp(pool, devices) {
      const before = byPool.get(pool);
      const now = new Map<string, string>();
      const stamped = devices.map((device) => {
        if (device.taints === undefined || device.taints.length === 0) return device;
        const taints = device.taints.map((taint) => {
          const id = identity(device.name, taint);
          const timeAdded = now.get(id) ?? before?.get(id) ?? taint.timeAdded ?? rfc3339(clock.now());
          now.set(id, timeAdded);
          return { ...taint, timeAdded };
        });
        return { ...device, taints };
      });
      if (now.size > 0) byPool.set(pool, now);
      else byPool.delete(pool);
      return stamped;
    },
    forget(pool) {
      byPool.delete(pool);
    },
  };
}
