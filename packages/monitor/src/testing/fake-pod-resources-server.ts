import { Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { podresources } from '@kdp/api';

/** Test double of the kubelet's pod-resources server: mutable answers, injected failures, call counts. */
export interface FakePodResourcesServer {
  list: podresources.ListPodResourcesResponse;
  allocatable: podresources.AllocatableResourcesResponse;
  /** Answer GetAllocatableResources with UNIMPLEMENTED (a kubelet without it). */
  allocatableUnimplemented: boolean;
  /** Fail the next `count` calls (any method) with `code`. */
  failNext(code: status, count: number): void;
  readonly calls: { list: number; getAllocatableResources: number };
  close(): Promise<void>;
}

/** Starts the fake on a unix socket. */
export async function startFakePodResourcesServer(socket: string): Promise<FakePodResourcesServer> {
  const server = new Server();
  const failures: status[] = [];
  const fake: FakePodResourcesServer = {
    list: { podResources: [] },
    allocatable: { devices: [], cpuIds: [], memory: [] },
    allocatableUnimplemented: false,
    failNext(code, count) {
      for (let i = 0; i < count; i += 1) failures.push(code);
    },
    calls: { list: 0, getAllocatableResources: 0 },
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
  const failure = (): Partial<ServiceError> | undefined => {
    const code = failures.shift();
    return code === undefined ? undefined : { code, details: `injected ${status[code]}` };
  };
  const implementation: podresources.PodResourcesListerServer = {
    list(_call, callback) {
      fake.calls.list += 1;
      const error = failure();
      if (error) callback(error);
      else callback(null, fake.list);
    },
    getAllocatableResources(_call, callback) {
      fake.calls.getAllocatableResources += 1;
      const error =
        failure() ??
        (fake.allocatableUnimplemented ? { code: status.UNIMPLEMENTED, details: 'not served' } : undefined);
      if (error) callback(error);
      else callback(null, fake.allocatable);
    },
    get(_call, callback) {
      callback({ code: status.UNIMPLEMENTED, details: 'not in the fake' });
    },
  };
  server.addService(podresources.PodResourcesListerService, implementation);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return fake;
}

/** A pod with one container holding `deviceIds` of `resource` (each on `numa`, when given). */
export function podWithDevices(
  name: string,
  container: string,
  resource: string,
  deviceIds: string[],
  options: {
    namespace?: string;
    numa?: number;
    cpuIds?: number[];
    memory?: podresources.ContainerMemory[];
  } = {},
): podresources.PodResources {
  const topology = options.numa === undefined ? undefined : { nodes: [{ ID: options.numa }] };
  return {
    name,
    namespace: options.namespace ?? 'default',
    containers: [
      {
        name: container,
        devices: deviceIds.map((id) => ({ resourceName: resource, deviceIds: [id], topology })),
        cpuIds: options.cpuIds ?? [],
        memory: options.memory ?? [],
        dynamicResources: [],
      },
    ],
    cpuIds: [],
    memory: [],
  };
}

/** A DRA claim's devices as the kubelet lists them in `dynamic_resources` (driver, pool, device names). */
export function claimResources(
  claimName: string,
  claimNamespace: string,
  devices: ReadonlyArray<{ driver: string; pool: string; device: string }>,
): podresources.DynamicResource {
  return {
    claimName,
    claimNamespace,
    claimResources: devices.map((d) => ({
      cdiDevices: [{ name: `${d.driver}/dev=${d.device}` }],
      driverName: d.driver,
      poolName: d.pool,
      deviceName: d.device,
    })),
  };
}

/** A pod whose containers hold only DRA claims: container name → its `dynamic_resources`. */
export function podWithClaims(
  name: string,
  namespace: string,
  containers: Readonly<Record<string, readonly podresources.DynamicResource[]>>,
): podresources.PodResources {
  return {
    name,
    namespace,
    containers: Object.entries(containers).map(([container, dynamicResources]) => ({
      name: container,
      devices: [],
      cpuIds: [],
      memory: [],
      dynamicResources: [...dynamicResources],
    })),
    cpuIds: [],
    memory: [],
  };
}
