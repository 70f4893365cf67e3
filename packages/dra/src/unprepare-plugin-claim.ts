import type { PluginDevice } from '@kdp/core';
import type { UnprepareInput } from './dra-driver';
import type { ClaimableResource } from './prepare-plugin-claim';

/**
 * Undoes a plugin claim's prepare: each resource's DRA `unprepare` hook with the claim's devices of it that the
 * pool still knows (a MIG instance destroyed). Resources without the hook have nothing to undo.
 */
export async function unpreparePluginClaim(
  { claim, results }: UnprepareInput,
  byPool: ReadonlyMap<string, ClaimableResource>,
): Promise<void> {
  const groups = new Map<ClaimableResource, PluginDevice<unknown>[]>();
  for (const result of results) {
    const entry = byPool.get(result.pool);
    const device = entry?.devices.get(result.device);
    if (entry?.declaration.dra?.unprepare === undefined || device === undefined) continue;
    groups.set(entry, [...(groups.get(entry) ?? []), device]);
  }
  for (const [entry, devices] of groups)
    await entry.declaration.dra?.unprepare?.({
      resource: entry.declaration.name,
      devices,
      claimUid: claim.uid,
    });
}
