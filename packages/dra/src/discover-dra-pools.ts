import type { ModeDiscoverInput, ModeDiscoverResult } from '@kdp/core/plugin';
import { createDriverPools } from './driver-pools';
import { splitPool } from './pool-slices';

/**
 * What `serve --mode dra` would publish for one plugin now (`discover --mode dra`): each resource's pool cut into
 * slices by the same code as the publisher's — the driver's pools (names, attributes, taints of Unhealthy devices
 * and whatever else they add) and `splitPool` (the API's JSON, the per-slice limits) — with the devices the scan
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
      pools: [...pools.slices()].map(([pool, devices]) => ({
        resourceName: pools.byPool.get(pool)?.declaration.name ?? pool,
        pool,
        slices: splitPool(devices),
      })),
    };
  } finally {
    pools.close();
  }
}
