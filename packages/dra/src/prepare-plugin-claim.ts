import type { Logger } from '@kdp/base';
import type { AnyResourceDeclaration, ContainerAllocation, PluginDevice } from '@kdp/core';
import { applyClaimConfig, withConfigEnv, type AppliedClaimConfig } from './apply-claim-config';
import type { PreparedDevice, PrepareInput, PrepareOutput } from './dra-driver';
import { withDeviceMetadata, type PreparedSource } from './claim-device-metadata';
import type { DeviceMetadataWriter } from './device-metadata';
import { formatTaint, untoleratedTaints } from './device-tolerations';
import { cdiDeviceEdits } from './dra-serve-mode-devices';
import { healthTaint } from './health-taint';
import { shareEdits } from './share-edits';

/** One resource of a plugin's driver, as a claim's devices are looked up in it. */
export interface ClaimableResource {
  readonly declaration: AnyResourceDeclaration;
  /** Its devices now, by DRA device name. */
  readonly devices: ReadonlyMap<string, PluginDevice<unknown>>;
}

type Claimed = { readonly result: PrepareInput['results'][number]; readonly device: PluginDevice<unknown> };

/**
 * A claim's devices on this node, grouped by resource; throws for a device that is not here, or that has a taint
 * (an Unhealthy device's `kdp.dev/unhealthy`) its allocation result does not tolerate.
 */
function claimedDevices(
  results: PrepareInput['results'],
  byPool: ReadonlyMap<string, ClaimableResource>,
  driver: string,
): Map<ClaimableResource, Claimed[]> {
  const groups = new Map<ClaimableResource, Claimed[]>();
  for (const result of results) {
    const entry = byPool.get(result.pool);
    if (entry === undefined) throw new Error(`pool ${result.pool} is not served by ${driver} on this node`);
    const device = entry.devices.get(result.device);
    if (device === undefined) throw new Error(`device ${result.pool}/${result.device} is not on this node`);
    const taint = healthTaint(entry.declaration, device);
    if (taint !== undefined && untoleratedTaints([taint], result.tolerations).length > 0)
      throw new Error(
        `device ${result.pool}/${result.device} (${device.id}) is Unhealthy${device.problem ? `: ${device.problem}` : ''}; ` +
          `its taint ${formatTaint(taint)} is not tolerated by request ${result.request}`,
      );
    groups.set(entry, [...(groups.get(entry) ?? []), { result, device }]);
  }
  return groups;
}

/** What a resource needs for `devices` under CDI alone: its allocate hook's full answer (nothing without one). */
async function allocateForCdi(
  entry: ClaimableResource,
  devices: readonly PluginDevice<unknown>[],
  signal: AbortSignal,
): Promise<ContainerAllocation> {
  const { declaration } = entry;
  const hook = declaration.allocateForCdi ?? declaration.allocate;
  if (hook === undefined) return {};
  return hook({ resource: declaration.name, devices, containerIndex: 0, signal });
}

/**
 * Prepares one claim of a plugin's driver: each device alone through its resource's allocate hook, whatever the
 * device-plugin strategy, so that its CDI device carries everything a container needs for it (`cdiDeviceEdits`:
 * device nodes, mounts, device-list variables `void`, its own environment) and the CDI names the hook answers.
 * A resource's PreStartContainer work (an FPGA region's programming) is done here, once for the claim's devices
 * of the resource: DRA has no PreStartContainer. A resource's DRA `prepare` hook then makes the devices exist (a MIG
 * instance at its placement); what it answers for a device replaces the allocate hook's answer. With `metadata`, the claim's device
 * metadata files are written and mounted into its containers (`withDeviceMetadata`).
 */
export async function preparePluginClaim(
  { claim, results, config }: PrepareInput,
  byPool: ReadonlyMap<string, ClaimableResource>,
  driver: string,
  signal: AbortSignal,
  logger: Logger,
  metadata?: DeviceMetadataWriter,
): Promise<PrepareOutput> {
  const prepared: PreparedDevice[] = [];
  const sources: PreparedSource[] = [];
  for (const [entry, items] of claimedDevices(results, byPool, driver)) {
    const { declaration } = entry;
    // The claim's typed configuration first (it may do a device's PreStartContainer work itself: its own bitstream).
    const applied = new Map<Claimed, AppliedClaimConfig>();
    for (const item of items)
      applied.set(
        item,
        await applyClaimConfig(
          declaration,
          config,
          { request: item.result.request, device: item.device, deviceName: item.result.device },
          signal,
        ),
      );
    const rest = items.filter((item) => applied.get(item)?.prepared !== true);
    if (rest.length > 0)
      await declaration.preStartContainer?.({
        resource: declaration.name,
        devices: rest.map((item) => item.device),
        unknownIds: [],
        signal,
      });
    const made = await declaration.dra?.prepare?.({
      resource: declaration.name,
      devices: items.map((item) => item.device),
      claimUid: claim.metadata.uid,
      signal,
    });
    for (const [i, item] of items.entries()) {
      const { result, device } = item;
      const own = made?.[i] ?? (await allocateForCdi(entry, [device], signal));
      if (Object.keys(own.annotations ?? {}).length > 0)
        logger.debug(
          { device: device.id },
          'allocation annotations have no place in CDI edits; not passed on',
        );
      prepared.push({
        requestNames: [result.request],
        poolName: result.pool,
        deviceName: result.device,
        containerEdits: shareEdits(
          declaration,
          device,
          result,
          withConfigEnv(
            cdiDeviceEdits(own, declaration.deviceListEnv?.([device]) ?? {}, result.device),
            applied.get(item)?.env ?? {},
          ),
        ),
        ...((own.cdiDevices?.length ?? 0) > 0 ? { cdiDeviceIds: [...(own.cdiDevices ?? [])] } : {}),
        ...(result.shareID !== undefined ? { shareId: result.shareID } : {}),
      });
      sources.push({ result, device, declaration });
    }
  }
  if (metadata !== undefined)
    return { devices: await withDeviceMetadata(metadata, claim, sources, prepared) };
  return { devices: prepared };
}
