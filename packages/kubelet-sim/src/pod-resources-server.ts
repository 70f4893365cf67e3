import { dirname } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Server, status, type handleUnaryCall } from '@grpc/grpc-js';
import { podresources, type Device } from '@kdp/api';
import type { Clock } from '@kdp/base';
import { bindUnix, rpcError, stopServer } from './grpc-util';
import { createRateLimiter, type RateLimit } from './rate-limiter';

/** Devices of one resource held by one container. */
export interface HeldDevices {
  readonly resource: string;
  readonly deviceIds: readonly string[];
}

/** One pod as the pod-resources API reports it. */
export interface PodSnapshot {
  readonly name: string;
  readonly namespace: string;
  readonly containers: ReadonlyArray<{
    readonly name: string;
    readonly devices: readonly HeldDevices[];
    /** The container's prepared DRA claims, as the kubelet fills `dynamic_resources`. */
    readonly dynamicResources?: readonly podresources.DynamicResource[];
  }>;
}

/** What the pod-resources server reads from the simulated kubelet on every call. */
export interface PodResourcesSource {
  pods(): PodSnapshot[];
  /** Healthy devices by resource (P-35: GetAllocatableResources lists healthy devices only). */
  allocatable(): ReadonlyArray<{ readonly resource: string; readonly devices: readonly Device[] }>;
  /** Topology of a device as last listed, for flattening. */
  deviceTopology(resource: string, id: string): number[];
}

/** A running pod-resources server. */
export interface PodResourcesServer {
  close(): Promise<void>;
}

/**
 * Flattens devices the way the kubelet does (P-35): one ContainerDevices per (device, NUMA node); a device
 * without topology gets one entry without topology.
 */
export function flattenDevices(
  resource: string,
  ids: readonly string[],
  topologyOf: (id: string) => number[],
): podresources.ContainerDevices[] {
  const out: podresources.ContainerDevices[] = [];
  for (const id of ids) {
    const nodes = topologyOf(id);
    if (nodes.length === 0) {
      out.push({ resourceName: resource, deviceIds: [id], topology: undefined });
      continue;
    }
    for (const node of nodes) {
      out.push({ resourceName: resource, deviceIds: [id], topology: { nodes: [{ ID: node }] } });
    }
  }
  return out;
}

function podResourcesOf(pod: PodSnapshot, source: PodResourcesSource): podresources.PodResources {
  return {
    name: pod.name,
    namespace: pod.namespace,
    containers: pod.containers.map((c) => ({
      name: c.name,
      devices: c.devices.flatMap((held) =>
        flattenDevices(held.resource, held.deviceIds, (id) => source.deviceTopology(held.resource, id)),
      ),
      cpuIds: [],
      memory: [],
      dynamicResources: [...(c.dynamicResources ?? [])],
    })),
    cpuIds: [],
    memory: [],
  };
}

/** Serves PodResourcesLister v1 (List, GetAllocatableResources, Get) on `socket`, rate-limited (P-35). */
export async function startPodResourcesServer(options: {
  socket: string;
  rateLimit: RateLimit;
  clock: Clock;
  source: PodResourcesSource;
}): Promise<PodResourcesServer> {
  const { source } = options;
  const limiter = createRateLimiter(options.rateLimit, options.clock);
  const limited =
    <Req, Res>(handler: (request: Req) => Res): handleUnaryCall<Req, Res> =>
    (call, callback) => {
      if (!limiter.tryTake()) {
        callback(rpcError(status.RESOURCE_EXHAUSTED, 'rejected by rate limit'));
        return;
      }
      try {
        callback(null, handler(call.request));
      } catch (err) {
        callback(rpcError(status.UNKNOWN, err instanceof Error ? err.message : String(err)));
      }
    };
  const implementation: podresources.PodResourcesListerServer = {
    list: limited(() => ({ podResources: source.pods().map((p) => podResourcesOf(p, source)) })),
    getAllocatableResources: limited(() => ({
      devices: source.allocatable().flatMap((r) =>
        flattenDevices(
          r.resource,
          r.devices.map((d) => d.ID),
          (id) => source.deviceTopology(r.resource, id),
        ),
      ),
      cpuIds: [],
      memory: [],
    })),
    get: limited((request: podresources.GetPodResourcesRequest) => {
      const pod = source
        .pods()
        .find((p) => p.name === request.podName && p.namespace === request.podNamespace);
      if (pod === undefined) {
        throw new Error(`pod ${request.podName} in namespace ${request.podNamespace} not found`);
      }
      return { podResources: podResourcesOf(pod, source) };
    }),
  };
  const server = new Server();
  server.addService(podresources.PodResourcesListerService, implementation);
  mkdirSync(dirname(options.socket), { recursive: true, mode: 0o750 });
  await bindUnix(server, options.socket);
  return { close: () => stopServer(server) };
}
