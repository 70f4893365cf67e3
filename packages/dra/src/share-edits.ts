import type { AnyResourceDeclaration, CdiContainerEdits, PluginDevice } from '@kdp/core';
import type { DeviceRequestAllocationResult } from './resource-claim';

/**
 * The container edits of one share of a shared device (an allocation result with a `shareID`): the device's own
 * edits plus the environment its resource's sharing hook gives that share (its limits, under the names a runtime
 * reads); a result without a share is left as it is.
 */
export function shareEdits(
  declaration: AnyResourceDeclaration,
  device: PluginDevice<unknown>,
  result: DeviceRequestAllocationResult,
  edits: CdiContainerEdits | undefined,
): CdiContainerEdits | undefined {
  if (result.shareID === undefined) return edits;
  const env = declaration.dra?.sharing?.env?.(device, {
    id: result.shareID,
    consumed: result.consumedCapacity ?? {},
  });
  const entries = Object.keys(env ?? {})
    .sort()
    .map((name) => `${name}=${env?.[name] ?? ''}`);
  if (entries.length === 0) return edits;
  return { ...edits, env: [...(edits?.env ?? []), ...entries] };
}
