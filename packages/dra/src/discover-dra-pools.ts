import type { ModeDiscoverInput, ModeDiscoverResult } from '@kdp/core/plugin';
import { createDriverPools } from './driver-pools';
import { toDesiredPools } from './desired-pools';
import { MAX_DEVICES_PER_SLICE } from './pool-slices';

/**
 * What `serve --mode dra` would publish for one plugin now (`discover --mode dra`): each resource's pool cut into
 * slices by the same code as the publisher's — the driver's pools (names, attributes, taints of Unhealthy devices
 * and whatever else they add) and `toDesiredPools` (the API's JSON, the per-slice limits, counter sets in slices of their own) — with the devices the scan
 * found instead of a running source.
 */
export function discoverDraPools(input: ModeDiscoverInput, driver: string): ModeDiscoverResult {
  const pools = createDriverPools(
    { name: driver, nodeName: input.nodeName, clock: input.clock, logger: input.logger },
    () => undefined,
  );
  try {
    for (const { spec, devices } of input.resources)
      pools.host.addResource({
        ...spec,
        source: {
          subscribe(listener) {
            listener(devices);
            return () => undefined;
          },
        },
      });
    return {
      driver,
      pools: [...toDesiredPools(pools.slices(), MAX_DEVICES_PER_SLICE)].map(([pool, desired]) => {
        const counterSets = desired.slices.flatMap((slice) => slice.sharedCounters ?? []);
        return {
          resourceName: pools.byPool.get(pool)?.declaration.name ?? pool,
          pool,
          slices: desired.slices.flatMap((slice) => (slice.devices !== undefined ? [slice.devices] : [])),
          ...(counterSets.length > 0 ? { counterSets } : {}),
        };
      }),
    };
  } finally {
    pools.close();
  }
}
