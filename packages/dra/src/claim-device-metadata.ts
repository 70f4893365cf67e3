import type { AnyResourceDeclaration, PluginDevice } from '@kdp/core';
import type { DeviceMetadataEntry, DeviceMetadataWriter } from './device-metadata';
import type { PreparedDevice } from './dra-driver';
import { baseRequestName } from './base-request-name';
import { toSliceDevice } from './dra-serve-mode-devices';
import { toApiDevice } from './pool-slices';
import type { DeviceRequestAllocationResult, ResourceClaim } from './resource-claim';

/** A prepared device with what it was prepared from. */
export interface PreparedSource {
  readonly result: DeviceRequestAllocationResult;
  readonly device: PluginDevice<unknown>;
  readonly declaration: AnyResourceDeclaration;
}

/** The metadata of an allocated device: its slice attributes, its share and its network data. */
export async function deviceMetadataEntry({
  result,
  device,
  declaration,
}: PreparedSource): Promise<DeviceMetadataEntry> {
  const networkData = await declaration.dra?.networkData?.(device);
  return {
    request: result.request,
    driver: result.driver,
    pool: result.pool,
    device: result.device,
    attributes: toApiDevice(toSliceDevice(declaration.name, device)).attributes ?? {},
    ...(result.shareID !== undefined ? { shareID: result.shareID } : {}),
    ...(result.consumedCapacity !== undefined ? { consumedCapacity: result.consumedCapacity } : {}),
    ...(networkData !== undefined ? { networkData } : {}),
  };
}

/**
 * Writes the claim's device metadata files and mounts each request's file read-only through the CDI device of
 * the request's first prepared device (a container naming the request gets all of them), so each container sees
 * the metadata of exactly the requests it names. `sources[i]` is what `prepared[i]` was prepared from.
 */
export async function withDeviceMetadata(
  writer: DeviceMetadataWriter,
  claim: ResourceClaim,
  sources: readonly PreparedSource[],
  prepared: readonly PreparedDevice[],
): Promise<PreparedDevice[]> {
  const entries: DeviceMetadataEntry[] = [];
  for (const source of sources) entries.push(await deviceMetadataEntry(source));
  const mounts = await writer.write(claim, entries);
  return prepared.map((device, i) => {
    const request = baseRequestName(sources[i]?.result.request ?? '');
    const mount = mounts.get(request);
    if (mount === undefined) return device;
    mounts.delete(request);
    const edits = device.containerEdits;
    return { ...device, containerEdits: { ...edits, mounts: [...(edits?.mounts ?? []), mount] } };
  });
}
