import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import {
  CheckpointFileName,
  ContainerAllocateResponse,
  type Device,
  type DevicePluginOptions,
  EndpointStopGracePeriodMs,
  Healthy,
  KubeletSocketName,
  PluginDialTimeoutMs,
  PreStartContainerTimeoutSeconds,
  SupportedVersions,
  V1alphaVersion,
  validateResourceName,
  Version,
} from '@kdp/api';
import { type PodDeviceEntry, readCheckpoint, writeCheckpoint } from './checkpoint';
import { isDialable, systemClock } from '@kdp/base';
import { chooseDevices } from './device-choice';
import { goErrorString } from './grpc-util';
import type {
  Admission,
  AdmitRequest,
  KubeletSim,
  KubeletSimOptions,
  ResourceState,
  StallableRpc,
} from './kubelet-sim-types';
import { connectPluginEndpoint, type PluginEndpoint } from './plugin-endpoint';
import { type PluginWatcher, startPluginWatcher } from './plugin-watcher';
import { type PodResourcesServer, type PodSnapshot, startPodResourcesServer } from './pod-resources-server';
import { defaultPodResourcesRateLimit } from './rate-limiter';
import {
  type RegisterCall,
  type RegistrationServerHandle,
  startRegistrationServer,
} from './registration-server';
import {
  type PluginApiVersion,
  type SimEvent,
  type SimEventOf,
  type SimEventType,
  waitForEvent,
} from './sim-events';
import { removeSockets, ensureSocketDir } from './socket-dir';
import { createDraApiClient } from './dra/dra-api-client';
import { DraCheckpointFileName } from './dra/dra-checkpoint';
import { createDraManager, type DraManager } from './dra/dra-manager';
import { DraPluginType } from './dra/dra-services';
import { handshakeWatchedPlugin } from './watcher-handshake';

interface Connection {
  readonly endpoint: PluginEndpoint;
  cancelStream?: () => void;
  detached: boolean;
  dropReason?: string;
}

interface ResourceRecord {
  readonly name: string;
  endpointName: string;
  socketPath: string;
  apiVersion: PluginApiVersion;
  options: DevicePluginOptions;
  devices: Device[];
  healthy: string[];
  unhealthy: string[];
  connection?: Connection;
  stoppedAt?: number;
  graceTimer?: unknown;
}

interface Allocation {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly resource: string;
  readonly deviceIds: string[];
  readonly byNuma: Record<string, string[]>;
  readonly response: ContainerAllocateResponse;
}

/** The message a pod gets when admission fails (`UnexpectedAdmissionError`, P-24). */
function admissionMessage(inner: string): string {
  return `Allocate failed due to ${inner}, which is unexpected`;
}

const podKey = (namespace: string, pod: string): string => `${namespace}/${pod}`;

/** Go's `%q` of a string slice, for the kubelet's version message (P-7). */
const goQuoteList = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Starts a simulated kubelet device manager serving `<dir>/kubelet.sock`. */
export async function createKubeletSim(options: KubeletSimOptions): Promise<KubeletSim> {
  const dir = options.dir;
  const clock = options.clock ?? systemClock;
  const gracePeriodMs = options.gracePeriodMs ?? EndpointStopGracePeriodMs;
  const dialTimeoutMs = options.dialTimeoutMs ?? PluginDialTimeoutMs;
  const preStartTimeoutMs = options.preStartTimeoutMs ?? PreStartContainerTimeoutSeconds * 1000;
  const acceptedApis = options.acceptedApis ?? ['v1beta1'];
  const checkpointPath = join(dir, CheckpointFileName);
  const kubeletSocket = join(dir, KubeletSocketName);

  const events = new EventEmitter();
  events.setMaxListeners(0);
  const resources = new Map<string, ResourceRecord>();
  let allocations: Allocation[] = [];
  const stalls = new Map<StallableRpc, number>();
  let refusal: string | undefined;
  let registration: RegistrationServerHandle | undefined;
  let watcher: PluginWatcher | undefined;
  let podResources: PodResourcesServer | undefined;
  /** Bumped by every restart, so that work begun before it is dropped. */
  let generation = 0;
  /** Aborts dials in flight when the kubelet stops. */
  let stopping = new AbortController();
  let closed = false;
  let admissionChain: Promise<unknown> = Promise.resolve();
  /** Plugin-watcher sockets and the resource each registered. */
  const watched = new Map<string, string>();
  const draOptions = options.dra;
  const registryDir = draOptions?.pluginsRegistryDir ?? options.pluginsRegistryDir;
  if (draOptions !== undefined && registryDir === undefined) {
    throw new Error(
      'kubelet-sim: dra needs a plugins registry directory (dra.pluginsRegistryDir or pluginsRegistryDir)',
    );
  }
  if (
    draOptions?.pluginsRegistryDir !== undefined &&
    options.pluginsRegistryDir !== undefined &&
    draOptions.pluginsRegistryDir !== options.pluginsRegistryDir
  ) {
    throw new Error(
      'kubelet-sim: the kubelet has one plugins registry: dra.pluginsRegistryDir must equal pluginsRegistryDir',
    );
  }

  const emit = <T extends SimEventType>(type: T, payload: Omit<SimEventOf<T>, 'type' | 'at'>): void => {
    const event = { type, at: systemClock.now(), ...payload } as unknown as SimEvent;
    events.emit(type, event);
    events.emit('event', event);
  };

  const dra: DraManager | undefined =
    draOptions === undefined
      ? undefined
      : createDraManager({
          emit,
          clock,
          nodeName: draOptions.nodeName ?? 'kubelet-sim-node',
          api: draOptions.apiServer === undefined ? undefined : createDraApiClient(draOptions.apiServer),
          checkpointPath: join(draOptions.stateDir ?? dir, DraCheckpointFileName),
          callTimeoutMs: draOptions.callTimeoutMs ?? 45_000,
          wipeDelayMs: draOptions.wipeDelayMs ?? 30_000,
          healthRetryMs: draOptions.healthRetryMs ?? 5000,
          podSyncRetryMs: draOptions.podSyncRetryMs ?? 1000,
        });
  const requireDra = (): DraManager => {
    if (dra === undefined) throw new Error('kubelet-sim: DRA is off (pass the dra option)');
    return dra;
  };

  const stall = async (rpc: StallableRpc): Promise<void> => {
    const ms = stalls.get(rpc);
    if (ms === undefined) return;
    stalls.delete(rpc);
    await new Promise((resolve) => setTimeout(resolve, ms));
  };

  const topologyOf = (resource: string, id: string): number[] =>
    resources
      .get(resource)
      ?.devices.find((d) => d.ID === id)
      ?.topology?.nodes.map((n) => n.ID) ?? [];

  // P-17, P-31: the checkpoint is rewritten after every change.
  const checkpoint = (): void => {
    if (closed) return;
    const entries: PodDeviceEntry[] = allocations.map((a) => ({
      PodUID: podKey(a.namespace, a.pod),
      ContainerName: a.container,
      ResourceName: a.resource,
      DeviceIDs: a.byNuma,
      AllocResp: Buffer.from(ContainerAllocateResponse.encode(a.response).finish()).toString('base64'),
    }));
    const registered: Record<string, string[]> = {};
    for (const record of resources.values()) registered[record.name] = [...record.healthy];
    try {
      writeCheckpoint(checkpointPath, { PodDeviceEntries: entries, RegisteredDevices: registered });
      emit('checkpoint-written', { path: checkpointPath });
    } catch {
      // The directory was removed under us: the next change writes it again.
    }
  };

  // P-5, P-20: after a (re)start only the checkpoint survives: its resources come back stopped and empty.
  const loadCheckpoint = (): void => {
    const data = readCheckpoint(checkpointPath);
    if (data === undefined) return;
    for (const name of Object.keys(data.RegisteredDevices)) {
      const record: ResourceRecord = {
        name,
        endpointName: '',
        socketPath: '',
        apiVersion: 'v1beta1',
        options: { preStartRequired: false, getPreferredAllocationAvailable: false },
        devices: [],
        healthy: [],
        unhealthy: [],
      };
      resources.set(name, record);
      markStopped(record);
    }
    allocations = data.PodDeviceEntries.map((entry) => {
      const slash = entry.PodUID.indexOf('/');
      return {
        namespace: slash >= 0 ? entry.PodUID.slice(0, slash) : 'default',
        pod: slash >= 0 ? entry.PodUID.slice(slash + 1) : entry.PodUID,
        container: entry.ContainerName,
        resource: entry.ResourceName,
        deviceIds: [...new Set(Object.values(entry.DeviceIDs).flat())],
        byNuma: entry.DeviceIDs,
        response: decodeResponse(entry.AllocResp),
      };
    });
  };

  // P-19: a stopped endpoint's resource is dropped once the grace period is over.
  const markStopped = (record: ResourceRecord): void => {
    record.stoppedAt = clock.now();
    if (record.graceTimer !== undefined) clock.clearTimeout(record.graceTimer);
    record.graceTimer = clock.setTimeout(() => {
      if (resources.get(record.name) !== record || record.connection !== undefined) return;
      resources.delete(record.name);
      emit('resource-removed', { resource: record.name });
      checkpoint();
    }, gracePeriodMs);
  };

  const detach = (connection: Connection | undefined): void => {
    if (connection === undefined || connection.detached) return;
    connection.detached = true;
    connection.cancelStream?.();
    connection.endpoint.close();
  };

  // P-19: the stream ended; every device becomes unhealthy, capacity stays, the stop time is recorded.
  const onStreamEnd = (record: ResourceRecord, connection: Connection, reason: string): void => {
    if (connection.detached || record.connection !== connection) return;
    detach(connection);
    delete record.connection;
    record.unhealthy = [...new Set([...record.healthy, ...record.unhealthy])];
    record.healthy = [];
    markStopped(record);
    emit('stream-ended', { resource: record.name, reason: connection.dropReason ?? reason });
    checkpoint();
  };

  // P-14, P-15: every message is a full snapshot; only the exact string "Healthy" is healthy.
  const onDevices = (record: ResourceRecord, connection: Connection, devices: Device[]): void => {
    if (connection.detached || record.connection !== connection) return;
    const byId = new Map<string, Device>();
    for (const device of devices) {
      byId.delete(device.ID);
      byId.set(device.ID, device);
    }
    record.devices = [...byId.values()];
    record.healthy = record.devices.filter((d) => d.health === Healthy).map((d) => d.ID);
    record.unhealthy = record.devices.filter((d) => d.health !== Healthy).map((d) => d.ID);
    emit('devices', {
      resource: record.name,
      devices,
      healthy: [...record.healthy],
      unhealthy: [...record.unhealthy],
    });
    checkpoint();
  };

  /** P-11, P-12: dial (blocking, with timeout), GetDevicePluginOptions, then install and open ListAndWatch. */
  const connectPlugin = async (plugin: {
    resource: string;
    endpointName: string;
    socketPath: string;
    api: PluginApiVersion;
    version: string;
    requestOptions: DevicePluginOptions | undefined;
    via: 'register' | 'plugin-watcher';
  }): Promise<void> => {
    const started = generation;
    const servingAtRegister = await isDialable(plugin.socketPath, 5000);
    const endpoint = await connectPluginEndpoint(
      plugin.socketPath,
      plugin.api,
      dialTimeoutMs,
      stopping.signal,
    );
    let pluginOptions: DevicePluginOptions;
    try {
      await stall('getDevicePluginOptions');
      pluginOptions = await endpoint.getOptions();
    } catch (err) {
      endpoint.close();
      throw new Error(`failed to get device plugin options: ${goErrorString(err)}`, { cause: err });
    }
    if (closed || started !== generation) {
      endpoint.close();
      throw new Error('kubelet is restarting');
    }
    // P-9, P-21, P-22: a new registration replaces the old one; the old connection is closed.
    const previous = resources.get(plugin.resource);
    detach(previous?.connection);
    if (previous?.graceTimer !== undefined) clock.clearTimeout(previous.graceTimer);
    const connection: Connection = { endpoint, detached: false };
    const record: ResourceRecord = {
      name: plugin.resource,
      endpointName: plugin.endpointName,
      socketPath: plugin.socketPath,
      apiVersion: plugin.api,
      options: pluginOptions,
      devices: previous?.devices ?? [],
      healthy: previous?.healthy ?? [],
      unhealthy: previous?.unhealthy ?? [],
      connection,
    };
    resources.set(plugin.resource, record);
    emit('registered', {
      resource: plugin.resource,
      endpoint: plugin.endpointName,
      version: plugin.version,
      options: pluginOptions,
      requestOptions: plugin.requestOptions,
      servingAtRegister,
      via: plugin.via,
    });
    // P-12: exactly one ListAndWatch per registration, opened asynchronously, no deadline.
    setImmediate(() => {
      void stall('listAndWatch').then(() => {
        if (connection.detached) return;
        connection.cancelStream = endpoint.listAndWatch({
          onDevices: (devices) => onDevices(record, connection, devices),
          onEnd: (reason) => onStreamEnd(record, connection, reason),
        });
      });
    });
  };

  /** The Register handler: validation in the kubelet's order, with its messages (P-7, P-8, P-10, P-11). */
  const onRegister = async (call: RegisterCall): Promise<void> => {
    const reject = (message: string): never => {
      emit('register-rejected', {
        resource: call.resourceName,
        endpoint: call.endpoint,
        version: call.version,
        message,
      });
      throw new Error(message);
    };
    if (refusal !== undefined) {
      const message = refusal;
      refusal = undefined;
      reject(message);
    }
    const supported = call.api === 'v1beta1' ? SupportedVersions : [V1alphaVersion];
    if (!supported.includes(call.version)) {
      reject(
        `requested API version ${JSON.stringify(call.version)} is not supported by kubelet. ` +
          `Supported version is ${goQuoteList(supported)}`,
      );
    }
    const name = validateResourceName(call.resourceName);
    if (!name.valid) reject(name.message);
    try {
      await connectPlugin({
        resource: call.resourceName,
        endpointName: call.endpoint,
        // P-10: filepath.Join(dir, endpoint); the endpoint is not validated.
        socketPath: join(dir, call.endpoint),
        api: call.api,
        version: call.version,
        requestOptions: call.options,
        via: 'register',
      });
    } catch (err) {
      reject(err instanceof Error ? err.message : String(err));
    }
  };

  /** P-36: a socket appeared in plugins_registry: GetInfo, validate, connect, NotifyRegistrationStatus. */
  const onWatchedSocket = async (socketPath: string): Promise<void> => {
    const resource = await handshakeWatchedPlugin({
      socketPath,
      timeoutMs: dialTimeoutMs,
      connect: ({ resource: name, endpoint }) =>
        connectPlugin({
          resource: name,
          endpointName: endpoint,
          socketPath: isAbsolute(endpoint) ? endpoint : join(dir, endpoint),
          api: 'v1beta1',
          version: Version,
          requestOptions: undefined,
          via: 'plugin-watcher',
        }),
      onRejected: ({ resource: name, endpoint, message }) =>
        emit('register-rejected', { resource: name, endpoint, version: '', message }),
      ...(dra === undefined
        ? {}
        : {
            handlers: {
              [DraPluginType]: (info, endpoint) =>
                dra.registerPlugin(
                  { name: info.name, endpoint, supportedVersions: info.supportedVersions },
                  socketPath,
                ),
            },
          }),
      // P-36: the reconciler retries a socket whose GetInfo failed (e.g. found between bind and listen), every
      // second while it is there.
      onUnreachable: () => {
        const current = watcher;
        const timer = setTimeout(() => {
          if (!closed && watcher === current && current?.has(socketPath)) void onWatchedSocket(socketPath);
        }, 1000);
        timer.unref();
      },
    });
    if (resource !== undefined) watched.set(socketPath, resource);
  };

  // P-36: removing the registration socket deregisters the plugin.
  const onWatchedSocketRemoved = (socketPath: string): void => {
    dra?.onSocketRemoved(socketPath);
    const resource = watched.get(socketPath);
    watched.delete(socketPath);
    const record = resource === undefined ? undefined : resources.get(resource);
    if (record?.connection !== undefined)
      onStreamEnd(record, record.connection, 'plugin-watcher socket removed');
  };

  const serve = async (): Promise<void> => {
    ensureSocketDir(dir);
    // P-2: delete every socket except the checkpoint (and a pod-resources socket we serve ourselves).
    removeSockets(dir, options.podResourcesSocket === undefined ? [] : [options.podResourcesSocket]);
    loadCheckpoint();
    // P-3: remove a stale kubelet.sock and listen.
    registration = await startRegistrationServer({ socket: kubeletSocket, acceptedApis, onRegister });
    // The DRA manager starts before the plugin watcher: checkpoint, slice wipe, pod syncs.
    dra?.start();
    if (registryDir !== undefined) {
      watcher = startPluginWatcher({
        dir: registryDir,
        onAdded: (path) => void onWatchedSocket(path),
        onRemoved: onWatchedSocketRemoved,
      });
    }
  };

  // P-4: on stop the kubelet disconnects every client and stops its server (unlinking kubelet.sock).
  const stop = async (): Promise<void> => {
    generation += 1;
    stopping.abort();
    stopping = new AbortController();
    watcher?.close();
    watcher = undefined;
    watched.clear();
    dra?.stop();
    const server = registration;
    registration = undefined;
    for (const record of resources.values()) {
      detach(record.connection);
      if (record.graceTimer !== undefined) clock.clearTimeout(record.graceTimer);
    }
    resources.clear();
    allocations = [];
    if (server !== undefined) await server.close();
  };

  const snapshot = (record: ResourceRecord): ResourceState => ({
    name: record.name,
    endpoint: record.endpointName,
    registered: record.connection !== undefined,
    apiVersion: record.apiVersion,
    options: { ...record.options },
    devices: record.devices.map((d) => ({ ...d })),
    healthy: [...record.healthy],
    unhealthy: [...record.unhealthy],
    capacity: record.healthy.length + record.unhealthy.length,
    allocatable: record.healthy.length,
    ...(record.stoppedAt === undefined ? {} : { stoppedAt: record.stoppedAt }),
  });

  const podSnapshots = (): PodSnapshot[] => {
    const pods = new Map<
      string,
      { name: string; namespace: string; containers: Map<string, Allocation[]> }
    >();
    for (const a of allocations) {
      const key = podKey(a.namespace, a.pod);
      const pod = pods.get(key) ?? { name: a.pod, namespace: a.namespace, containers: new Map() };
      pod.containers.set(a.container, [...(pod.containers.get(a.container) ?? []), a]);
      pods.set(key, pod);
    }
    const snapshots: PodSnapshot[] = [...pods.values()].map((p) => ({
      name: p.name,
      namespace: p.namespace,
      containers: [...p.containers].map(([name, held]) => ({
        name,
        devices: held.map((a) => ({ resource: a.resource, deviceIds: a.deviceIds })),
      })),
    }));
    // Pods with DRA claims: their containers get `dynamic_resources`, merged with any device-plugin devices.
    for (const draPod of dra?.podSnapshots() ?? []) {
      const index = snapshots.findIndex((s) => s.name === draPod.name && s.namespace === draPod.namespace);
      const existing = snapshots[index];
      if (existing === undefined) {
        snapshots.push({
          name: draPod.name,
          namespace: draPod.namespace,
          containers: draPod.containers.map((c) => ({
            name: c.name,
            devices: [],
            dynamicResources: c.dynamicResources,
          })),
        });
        continue;
      }
      const containers = existing.containers.map((c) => ({
        ...c,
        dynamicResources: draPod.containers.find((d) => d.name === c.name)?.dynamicResources ?? [],
      }));
      for (const c of draPod.containers) {
        if (!containers.some((e) => e.name === c.name))
          containers.push({ name: c.name, devices: [], dynamicResources: c.dynamicResources });
      }
      snapshots[index] = { ...existing, containers };
    }
    return snapshots;
  };

  /** P-29: PreStartContainer with all the container's device IDs of that resource, under the deadline. */
  const preStart = async (allocation: Allocation): Promise<void> => {
    const record = resources.get(allocation.resource);
    if (record === undefined || !record.options.preStartRequired) return;
    const fail = (message: string): never => {
      emit('admission-failed', {
        pod: allocation.pod,
        namespace: allocation.namespace,
        container: allocation.container,
        resource: allocation.resource,
        message,
      });
      throw new Error(message);
    };
    if (record.connection === undefined) fail(`endpoint ${record.socketPath} has been stopped`);
    try {
      await stall('preStartContainer');
      await record.connection?.endpoint.preStartContainer(allocation.deviceIds, preStartTimeoutMs);
    } catch (err) {
      fail(`device plugin PreStartContainer rpc failed with err: ${goErrorString(err)}`);
    }
    emit('pre-started', {
      pod: allocation.pod,
      namespace: allocation.namespace,
      container: allocation.container,
      resource: allocation.resource,
      deviceIds: [...allocation.deviceIds],
    });
  };

  /** P-23 to P-27, P-30: choose devices, ask the plugin, commit or roll back. */
  const allocate = async (request: AdmitRequest, namespace: string): Promise<Allocation> => {
    const { pod, container, resource, count } = request;
    const existing = allocations.find(
      (a) =>
        a.pod === pod && a.namespace === namespace && a.container === container && a.resource === resource,
    );
    if (existing !== undefined) {
      // P-25: a container that was admitted before keeps its devices; no new Allocate.
      if (existing.deviceIds.length === count) return existing;
      throw new Error(
        `pod ${JSON.stringify(podKey(namespace, pod))} container ${JSON.stringify(container)} changed request ` +
          `for resource ${JSON.stringify(resource)}: from ${existing.deviceIds.length} to ${count}`,
      );
    }
    // P-24: the pre-checks, in the kubelet's order.
    const record = resources.get(resource);
    if (record === undefined) throw new Error(`cannot allocate unregistered device ${resource}`);
    if (record.healthy.length === 0) {
      throw new Error(`no healthy devices present; cannot allocate unhealthy devices ${resource}`);
    }
    const inUse = new Set(allocations.filter((a) => a.resource === resource).flatMap((a) => a.deviceIds));
    const available = new Set(record.healthy.filter((id) => !inUse.has(id)));
    if (available.size < count) {
      throw new Error(
        `requested number of devices unavailable for ${resource}. Requested: ${count}, Available: ${available.size}`,
      );
    }
    const connection = record.connection;
    if (connection === undefined) throw new Error(`endpoint ${record.socketPath} has been stopped`);

    // P-26: GetPreferredAllocation only when advertised; one container entry; the whole request as size.
    const askPlugin = async (pool: string[], mustInclude: string[]): Promise<string[]> => {
      try {
        await stall('getPreferredAllocation');
        return await connection.endpoint.getPreferredAllocation(pool, mustInclude, count);
      } catch (err) {
        throw new Error(`device plugin GetPreferredAllocation rpc failed with err: ${goErrorString(err)}`, {
          cause: err,
        });
      }
    };
    const chosen = await chooseDevices({
      devices: record.devices,
      available,
      count,
      affinity: request.affinity,
      preferred: record.options.getPreferredAllocationAvailable ? askPlugin : undefined,
    });

    // P-30: reserve before the RPC, commit on success, roll back on failure.
    const byNuma: Record<string, string[]> = {};
    for (const id of chosen) {
      const nodes = topologyOf(resource, id);
      for (const node of nodes.length > 0 ? nodes.map(String) : ['-1']) (byNuma[node] ??= []).push(id);
    }
    const reserved: Allocation = {
      pod,
      namespace,
      container,
      resource,
      deviceIds: chosen,
      byNuma,
      response: ContainerAllocateResponse.fromPartial({}),
    };
    allocations.push(reserved);
    try {
      await stall('allocate');
      // P-27: one RPC, exactly one container request; at least one response; only [0] is used.
      const responses = await connection.endpoint.allocate(chosen).catch((err: unknown) => {
        throw new Error(goErrorString(err), { cause: err });
      });
      const first = responses[0];
      if (first === undefined) throw new Error('no containers return in allocation response');
      const committed: Allocation = { ...reserved, response: first };
      allocations = allocations.map((a) => (a === reserved ? committed : a));
      return committed;
    } catch (err) {
      allocations = allocations.filter((a) => a !== reserved);
      throw err;
    }
  };

  const admit = async (request: AdmitRequest): Promise<Admission> => {
    const namespace = request.namespace ?? 'default';
    if (!Number.isInteger(request.count) || request.count < 1) {
      throw new RangeError(`admit: count must be a positive integer, got ${request.count}`);
    }
    const run = async (): Promise<Allocation> => {
      let allocation: Allocation;
      try {
        allocation = await allocate(request, namespace);
      } catch (err) {
        const message = admissionMessage(err instanceof Error ? err.message : String(err));
        emit('admission-failed', {
          pod: request.pod,
          namespace,
          container: request.container,
          resource: request.resource,
          message,
        });
        throw Object.assign(new Error(message, { cause: err }), { reason: 'UnexpectedAdmissionError' });
      }
      checkpoint();
      emit('allocated', {
        pod: request.pod,
        namespace,
        container: request.container,
        resource: request.resource,
        deviceIds: [...allocation.deviceIds],
        response: allocation.response,
      });
      return allocation;
    };
    // The kubelet admits one pod at a time (its device manager holds a mutex).
    const result = admissionChain.then(run, run);
    admissionChain = result.catch(() => undefined);
    const allocation = await result;
    // P-29: PreStartContainer before the container starts (admission is followed by the first start).
    await preStart(allocation);
    return { deviceIds: [...allocation.deviceIds], response: allocation.response };
  };

  /** Serves pod-resources when configured; a restart stops and serves it again, as the kubelet does. */
  const servePodResources = async (): Promise<void> => {
    if (options.podResourcesSocket === undefined) return;
    podResources = await startPodResourcesServer({
      socket: options.podResourcesSocket,
      rateLimit: options.podResourcesRateLimit ?? defaultPodResourcesRateLimit,
      clock,
      source: {
        pods: podSnapshots,
        allocatable: () =>
          [...resources.values()].map((r) => ({
            resource: r.name,
            devices: r.devices.filter((d) => r.healthy.includes(d.ID)),
          })),
        deviceTopology: topologyOf,
      },
    });
  };

  await serve();
  await servePodResources();

  return {
    dir,
    events,
    resource: (name) => {
      const record = resources.get(name);
      return record === undefined ? undefined : snapshot(record);
    },
    resources: () => [...resources.values()].map(snapshot),
    admit,
    release: (pod, namespace = 'default') => {
      const before = allocations.length;
      allocations = allocations.filter((a) => !(a.pod === pod && a.namespace === namespace));
      if (allocations.length !== before) checkpoint();
    },
    startContainer: async (pod, container, namespace = 'default') => {
      for (const allocation of allocations) {
        if (
          allocation.pod === pod &&
          allocation.namespace === namespace &&
          allocation.container === container
        ) {
          await preStart(allocation);
        }
      }
    },
    restart: async (restartOptions = {}) => {
      const before = [...resources.values()].filter((r) => r.connection !== undefined).map((r) => r.name);
      const waiting = restartOptions.waitForPlugins
        ? Promise.all(
            before.map((name) =>
              waitForEvent(
                events,
                'registered',
                (e) => e.resource === name,
                restartOptions.timeoutMs ?? 10_000,
              ),
            ),
          )
        : undefined;
      waiting?.catch(() => undefined);
      await stop();
      // The pod-resources socket goes away with the kubelet and comes back with it (monitors must redial).
      await podResources?.close();
      podResources = undefined;
      await serve();
      await servePodResources();
      emit('restarted', {});
      await waiting;
    },
    dropStream: (resource) => {
      const record = resources.get(resource);
      const connection = record?.connection;
      if (record === undefined || connection === undefined) {
        throw new Error(`kubelet-sim: no open ListAndWatch stream for ${resource}`);
      }
      connection.dropReason = 'stream dropped by the kubelet (kubelet-sim fault injection)';
      onStreamEnd(record, connection, connection.dropReason);
    },
    stallNext: (rpc, ms) => {
      stalls.set(rpc, ms);
    },
    deletePluginSocket: async (resource) => {
      const record = resources.get(resource);
      if (record === undefined || record.socketPath === '') {
        throw new Error(`kubelet-sim: no plugin socket known for ${resource}`);
      }
      rmSync(record.socketPath, { force: true });
      await Promise.resolve();
    },
    refuseNextRegister: (message = 'registration refused by kubelet-sim (fault injection)') => {
      refusal = message;
    },
    waitFor: (type, predicate, timeoutMs = 10_000) => waitForEvent(events, type, predicate, timeoutMs),
    prepareClaims: (pod, claims) => requireDra().prepareClaims(pod, claims),
    deletePod: (pod, namespace = 'default') => requireDra().deletePod(pod, namespace),
    draState: () => requireDra().state(),
    draHealth: (driver) => requireDra().health(driver),
    until: (resource, predicate, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const current = (): ResourceState | undefined => {
          const record = resources.get(resource);
          return record === undefined ? undefined : snapshot(record);
        };
        const check = (): boolean => {
          const state = current();
          if (state === undefined || !state.registered || !predicate(state)) return false;
          events.off('event', check);
          clearTimeout(timer);
          resolve(state);
          return true;
        };
        const timer = setTimeout(() => {
          events.off('event', check);
          const state = current();
          reject(
            new Error(
              `kubelet-sim: ${resource} did not reach the expected state within ${timeoutMs} ms; last: ${JSON.stringify(state ?? null)}`,
            ),
          );
        }, timeoutMs);
        events.on('event', check);
        check();
      }),
    close: async () => {
      if (closed) return;
      await stop();
      closed = true;
      await podResources?.close();
    },
  };
}

function decodeResponse(base64: string): ContainerAllocateResponse {
  try {
    return ContainerAllocateResponse.decode(Buffer.from(base64, 'base64'));
  } catch {
    return ContainerAllocateResponse.fromPartial({});
  }
}
