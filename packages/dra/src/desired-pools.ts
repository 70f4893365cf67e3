import { messageOf } from './message-of';
import { splitPool, type ApiDevice, type SliceDevice, type SlicePools } from './pool-slices';

/** One pool of the device model, cut into slices. */
export interface DesiredPool {
  readonly slices: readonly ApiDevice[][];
  /** The JSON text of each slice's devices, as written: what is stored reads the same unless it differs. */
  readonly texts: readonly string[];
  /** The whole pool's content, to recognise it again after a 422. */
  readonly key: string;
}

/** The device model cut into slices of at most `maxPerSlice` devices, by pool; throws on a duplicate device name. */
export function toDesiredPools(pools: SlicePools, maxPerSlice: number): Map<string, DesiredPool> {
  const entries = pools instanceof Map ? [...pools.entries()] : Object.entries(pools);
  const result = new Map<string, DesiredPool>();
  for (const [pool, devices] of entries as [string, readonly SliceDevice[]][]) {
    let slices: ApiDevice[][];
    try {
      slices = splitPool(devices, maxPerSlice);
    } catch (error) {
      throw new Error(`pool ${pool}: ${messageOf(error)}`);
    }
    const texts = slices.map((slice) => JSON.stringify(slice));
    result.set(pool, { slices, texts, key: texts.join('\n') });
  }
  return result;
}
