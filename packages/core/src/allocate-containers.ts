import { Code } from './code';
import {
  Healthy,
  type AllocateRequest,
  type AllocateResponse,
  type ContainerAllocateResponse,
} from '@kdp/api';
import { createAllocateContext } from './allocate-context';
import { defaultAllocation, toContainerAllocateResponse } from './container-allocation';
import { describeIds } from './describe-ids';
import { DevicePluginError, toGrpcError } from './device-plugin-error';
import type { ContainerAllocation, PluginDevice } from './plugin-device';
import type { ResourceDeclaration } from './resource-declaration';
import type { CallCancellation } from './unary-reply';

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

/** Up to how many IDs a container request is checked on the short path. */
const FEW = 16;

/** Checks one container's IDs: present, not repeated, known and healthy; returns the devices in request order. */
export function resolveRequestedDevices<P>(
  resource: string,
  ids: readonly string[],
  devices: ReadonlyMap<string, PluginDevice<P>>,
  containerIndex: number,
): PluginDevice<P>[] {
  if (!Array.isArray(ids) || ids.length === 0) {
    throw new DevicePluginError(
      Code.InvalidArgument,
      `cannot allocate ${resource}: container request ${containerIndex} for ${resource} names no devices`,
    );
  }
  // The usual request: a few IDs, each known, healthy and named once; checked without building sets.
  if (ids.length <= FEW) {
    const resolved: PluginDevice<P>[] = [];
    for (let i = 0; i < ids.length; i++) {
      const device = devices.get(ids[i] as string);
      if (device === undefined || device.health !== Healthy || ids.indexOf(ids[i] as string) !== i) break;
      resolved.push(device);
    }
    if (resolved.length === ids.length) return resolved;
  }
  return checkRequestedDevices(resource, ids, devices, containerIndex);
}

/** {@link resolveRequestedDevices} for any request: every problem found and named. */
function checkRequestedDevices<P>(
  resource: string,
  ids: readonly string[],
  devices: ReadonlyMap<string, PluginDevice<P>>,
  containerIndex: number,
): PluginDevice<P>[] {
  const where = `container request ${containerIndex} for ${resource}`;
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
  cancellation: CallCancellation,
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
  const answer = (chosen: PluginDevice<P>[], containerIndex: number) =>
    allocateContainer(declaration, chosen, containerIndex, cancellation, transform);
  // The kubelet sends one container request (P-27): answered without a Promise.all around it.
  const containerResponses =
    resolved.length === 1
      ? [await answer(resolved[0] as PluginDevice<P>[], 0)]
      : await Promise.all(resolved.map(answer));
  return { containerResponses };
}

/** One container's answer: the hook's (or the devices' own) allocation, transformed and checked. */
async function allocateContainer<P>(
  declaration: ResourceDeclaration<P>,
  chosen: PluginDevice<P>[],
  containerIndex: number,
  cancellation: CallCancellation,
  transform: AllocationTransform | undefined,
): Promise<ContainerAllocateResponse> {
  const resource = declaration.name;
  try {
    let allocation: ContainerAllocation = declaration.allocate
      ? await declaration.allocate(createAllocateContext(resource, chosen, containerIndex, cancellation))
      : defaultAllocation(chosen);
    if (transform) allocation = await transform({ resource, devices: chosen, allocation });
    return toContainerAllocateResponse(allocation);
  } catch (error) {
    const grpc = toGrpcError(error, `allocate hook for ${resource} failed`);
    throw new DevicePluginError(grpc.code, grpc.details, { cause: error });
  }
}
