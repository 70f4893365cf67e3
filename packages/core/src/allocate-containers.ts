import { Code } from './code';
import { Healthy, type AllocateRequest, type AllocateResponse } from '@kdp/api';
import { defaultAllocation, toContainerAllocateResponse } from './container-allocation';
import { describeIds } from './describe-ids';
import { DevicePluginError, toGrpcError } from './device-plugin-error';
import type { ContainerAllocation, PluginDevice } from './plugin-device';
import type { ResourceDeclaration } from './resource-declaration';

/** A plugin-wide step applied to every container's allocation (the runtime half adds CDI names here). */
export type AllocationTransform = (context: {
  resource: string;
  devices: readonly PluginDevice<unknown>[];
  allocation: ContainerAllocation;
}) => ContainerAllocation | Promise<ContainerAllocation>;

/**
 * The most container requests one Allocate or GetPreferredAllocation may carry. The kubelet sends exactly one
 * (P-26, P-27) and a batching kubelet one per container of a pod; each is prepared concurrently, so an unbounded
 * list (a 4 MiB request holds some 250,000) would hold the process for minutes and gigabytes.
 */
export const MAX_CONTAINER_REQUESTS = 256;

/** Rejects a request with more than {@link MAX_CONTAINER_REQUESTS} container requests (INVALID_ARGUMENT). */
export function checkContainerCount(resource: string, rpc: string, count: number): void {
  if (count > MAX_CONTAINER_REQUESTS)
    throw new DevicePluginError(
      Code.InvalidArgument,
      `cannot ${rpc} ${resource}: ${count} container requests, at most ${MAX_CONTAINER_REQUESTS} are served`,
    );
}

/** Checks one container's IDs: present, not repeated, known and healthy; returns the devices in request order. */
export function resolveRequestedDevices<P>(
  resource: string,
  ids: readonly string[],
  devices: ReadonlyMap<string, PluginDevice<P>>,
  containerIndex: number,
): PluginDevice<P>[] {
  const where = `container request ${containerIndex} for ${resource}`;
  if (!Array.isArray(ids) || ids.length === 0) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `cannot allocate ${resource}: ${where} names no devices`,
    );
  }
  const seen = new Set<string>();
  const repeated: string[] = [];
  const unknown: string[] = [];
  const unhealthy: string[] = [];
  const resolved: PluginDevice<P>[] = [];
  for (const id of ids) {
    if (seen.has(id)) {
      repeated.push(id);
      continue;
    }
    seen.add(id);
    const device = devices.get(id);
    if (device === undefined) unknown.push(id);
    else if (device.health !== Healthy) unhealthy.push(id);
    else resolved.push(device);
  }
  const problems: string[] = [];
  if (unknown.length > 0)
    problems.push(`unknown device ID${unknown.length > 1 ? 's' : ''} ${describeIds(unknown)}`);
  if (unhealthy.length > 0) {
    problems.push(`device${unhealthy.length > 1 ? 's' : ''} ${describeIds(unhealthy)} unhealthy`);
  }
  if (repeated.length > 0)
    problems.push(`device${repeated.length > 1 ? 's' : ''} ${describeIds(repeated)} requested twice`);
  if (problems.length > 0) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `cannot allocate ${resource}: ${problems.join('; ')} (${where}; ${devices.size} devices advertised)`,
    );
  }
  return resolved;
}

/**
 * The Allocate contract (P-27): one response per container request, in request order; every ID known and healthy;
 * hook and transform errors become gRPC errors (a thrown `code` is kept). Containers are prepared concurrently.
 */
export async function allocateContainers<P>(
  declaration: ResourceDeclaration<P>,
  devices: ReadonlyMap<string, PluginDevice<P>>,
  request: AllocateRequest,
  signal: AbortSignal,
  transform?: AllocationTransform,
): Promise<AllocateResponse> {
  const resource = declaration.name;
  const requests = Array.isArray(request?.containerRequests) ? request.containerRequests : [];
  if (requests.length === 0) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `cannot allocate ${resource}: the request has no container requests`,
    );
  }
  checkContainerCount(resource, 'allocate', requests.length);
  const resolved = requests.map((container, index) =>
    resolveRequestedDevices(resource, container?.devicesIds ?? [], devices, index),
  );
  const containerResponses = await Promise.all(
    resolved.map(async (chosen, containerIndex) => {
      let allocation: ContainerAllocation;
      try {
        allocation = declaration.allocate
          ? await declaration.allocate({ resource, devices: chosen, containerIndex, signal })
          : defaultAllocation(chosen);
        if (transform) allocation = await transform({ resource, devices: chosen, allocation });
        return toContainerAllocateResponse(allocation);
      } catch (error) {
        const grpc = toGrpcError(error, `allocate hook for ${resource} failed`);
        throw new DevicePluginError(grpc.code, grpc.details, { cause: error });
      }
    }),
  );
  return { containerResponses };
}
