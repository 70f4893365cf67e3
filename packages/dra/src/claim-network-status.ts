import type { Logger } from '@kdp/base';
import type { PrepareInput } from './dra-driver';
import type { ClaimDeviceStatus, ClaimStatusWriter } from './claim-status-writer';
import type { ClaimableResource } from './prepare-plugin-claim';

/** The claim's network devices on this node with their network data (their resources' `dra.networkData` hook). */
export async function networkDeviceStatus(
  results: PrepareInput['results'],
  byPool: ReadonlyMap<string, ClaimableResource>,
): Promise<ClaimDeviceStatus[]> {
  const out: ClaimDeviceStatus[] = [];
  for (const result of results) {
    const entry = byPool.get(result.pool);
    const hook = entry?.declaration.dra?.networkData;
    const device = entry?.devices.get(result.device);
    if (hook === undefined || device === undefined) continue;
    const networkData = await hook(device);
    out.push({
      driver: result.driver,
      pool: result.pool,
      device: result.device,
      ...(result.shareID !== undefined ? { shareID: result.shareID } : {}),
      ...(networkData !== undefined ? { networkData } : {}),
    });
  }
  return out;
}

/**
 * After a claim is prepared, reports its network devices in the claim's `status.devices` (KEP 4817). A failed
 * write is logged, not fatal: the devices are prepared, and the status only tells others about them.
 */
export async function reportNetworkStatus(
  writer: ClaimStatusWriter,
  input: PrepareInput,
  byPool: ReadonlyMap<string, ClaimableResource>,
  logger: Logger,
): Promise<void> {
  try {
    const devices = await networkDeviceStatus(input.results, byPool);
    if (devices.length === 0) return;
    await writer.write(input.claim, devices);
  } catch (error) {
    const { namespace, name } = input.claim.metadata;
    logger.warn(
      { claim: `${namespace}/${name}`, problem: error instanceof Error ? error.message : String(error) },
      'the claim’s device status was not written',
    );
  }
}
