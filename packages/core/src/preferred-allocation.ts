import { Code } from './code';
import { Healthy, type PreferredAllocationRequest, type PreferredAllocationResponse } from '@kdp/api';
import { checkContainerCount } from './allocate-containers';
import { DevicePluginError, toGrpcError } from './device-plugin-error';
import type { PluginDevice } from './plugin-device';
import type { ResourceDeclaration } from './resource-declaration';

/**
 * Trims any answer to the GetPreferredAllocation contract (P-26): every must-include ID first, then the answer's
 * IDs that are available, then other available IDs in the kubelet's order, never repeated, exactly
 * min(size, |available ∪ mustInclude|) IDs.
 */
export function enforcePreferredAllocation(
  answer: readonly string[],
  available: readonly string[],
  mustInclude: readonly string[],
  size: number,
): string[] {
  const allowed = new Set([...available, ...mustInclude]);
  const limit = Math.max(0, Math.min(Number.isFinite(size) ? Math.trunc(size) : 0, allowed.size));
  const chosen = new Set<string>();
  for (const group of [mustInclude, answer, available]) {
    for (const id of group) {
      if (chosen.size >= limit) break;
      if (allowed.has(id)) chosen.add(id);
    }
  }
  return [...chosen];
}

/** Answers GetPreferredAllocation with the resource's hook, one response per container request, trimmed. */
export async function preferredAllocation<P>(
  declaration: ResourceDeclaration<P>,
  devices: ReadonlyMap<string, PluginDevice<P>>,
  request: PreferredAllocationRequest,
): Promise<PreferredAllocationResponse> {
  const resource = declaration.name;
  const hook = declaration.preferredAllocation;
  if (hook === undefined) {
    throw new DevicePluginError(Code.Unimplemented, `${resource} does not offer GetPreferredAllocation`);
  }
  const requests = Array.isArray(request?.containerRequests) ? request.containerRequests : [];
  checkContainerCount(resource, 'choose a preferred allocation of', requests.length);
  const containerResponses = await Promise.all(
    requests.map(async (container) => {
      // Each list once, as sets: both come off the wire, and a hook (or a filter) quadratic in two long lists of
      // repeated or unknown IDs stalls the whole process, every resource it serves. The kubelet only ever sends
      // IDs the plugin advertised, once each (P-26), so for it nothing changes.
      const availableIds = new Set(container?.availableDeviceIDs ?? []);
      const mustInclude = [...new Set(container?.mustIncludeDeviceIDs ?? [])];
      const must = new Set(mustInclude);
      const size = container?.allocationSize ?? 0;
      // Only devices the plugin knows and that are healthy are offered to the hook; must-include ones always are.
      const usable = [...availableIds].filter((id) => devices.get(id)?.health === Healthy || must.has(id));
      const available = usable.flatMap((id) => {
        const device = devices.get(id);
        return device ? [device] : [];
      });
      // Unknown must-include IDs are left out of what the hook sees; the trim below still puts them first.
      const knownMust = mustInclude.filter((id) => devices.has(id));
      let answer: readonly string[];
      try {
        answer = await hook({ resource, available, mustInclude: knownMust, size });
        if (!Array.isArray(answer))
          throw new TypeError('the preferredAllocation hook must return an array of IDs');
      } catch (error) {
        const grpc = toGrpcError(error, `preferredAllocation hook for ${resource} failed`);
        throw new DevicePluginError(grpc.code, grpc.details, { cause: error });
      }
      return { deviceIDs: enforcePreferredAllocation(answer, usable, mustInclude, size) };
    }),
  );
  return { containerResponses };
}
