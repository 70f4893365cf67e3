import type { draHealthV1alpha1, podresources } from '@kdp/api';
import type { Clock } from '@kdp/base';
import { goErrorString } from '../grpc-util';
import { DraApiError, type DraApiClient, type ResourceClaimObject } from './dra-api-client';
import {
  type DraCheckpointClaim,
  type DraCheckpointDevice,
  type DraCheckpointPod,
  readDraCheckpoint,
  writeDraCheckpoint,
} from './dra-checkpoint';
import { connectDraEndpoint, type DraClaim, type DraEndpoint } from './dra-endpoint';
import type { DraDeviceHealth, DraEvent, PreparedClaim, PreparedDevice } from './dra-events';
import { chooseDraServices } from './dra-services';

/** A pod as the simulated kubelet syncs it: which containers use which ResourceClaims (by claim name). */
export interface DraPod {
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  /** Containers and the ResourceClaim names each uses; default one container `main` using every claim. */
  readonly containers?: ReadonlyArray<{ readonly name: string; readonly claims: readonly string[] }>;
}

/** A claim of a pod: a ResourceClaim name (read from the API server, as the kubelet does) or the object itself. */
export type DraClaimRef = string | ResourceClaimObject;

/** One endpoint of a registered driver, as {@link DraState} shows it. */
export interface DraEndpointState {
  readonly endpoint: string;
  readonly service: string;
  readonly healthService?: string;
  readonly connected: boolean;
}

/** What the simulated kubelet's DRA manager holds: drivers with their endpoints (oldest first), and claims. */
export interface DraState {
  readonly drivers: ReadonlyArray<{
    readonly driver: string;
    readonly endpoints: readonly DraEndpointState[];
  }>;
  readonly claims: ReadonlyArray<{
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly podUids: readonly string[];
    readonly prepared: boolean;
    readonly devices: readonly PreparedDevice[];
  }>;
}

/** A pod's containers with their DRA devices, for the pod-resources API. */
export interface DraPodSnapshot {
  readonly name: string;
  readonly namespace: string;
  readonly containers: ReadonlyArray<{
    readonly name: string;
    readonly dynamicResources: podresources.DynamicResource[];
  }>;
}

type Emit = <T extends DraEvent['type']>(
  type: T,
  payload: Omit<Extract<DraEvent, { type: T }>, 'type' | 'at'>,
) => void;

/** Options of {@link createDraManager}. */
export interface DraManagerOptions {
  readonly emit: Emit;
  /** Wipe delay and health timeouts/retries follow it. */
  readonly clock: Clock;
  readonly nodeName: string;
  readonly api: DraApiClient | undefined;
  readonly checkpointPath: string;
  /** NodePrepareResources / NodeUnprepareResources deadline; the kubelet's is 45 s. */
  readonly callTimeoutMs: number;
  /** How long a driver may have no connected endpoint before its slices are deleted; the kubelet's is 30 s. */
  readonly wipeDelayMs: number;
  /** Pause before NodeWatchResources is opened again after it ended; the kubelet's is 5 s. */
  readonly healthRetryMs: number;
  /** Pause before a pod whose prepare (or unprepare) failed is synced again (real time). */
  readonly podSyncRetryMs: number;
}

/** The simulated kubelet's DRA manager. */
export interface DraManager {
  /** The DRAPlugin handler of the plugin watcher: validates and adds the endpoint, or throws the kubelet's message. */
  registerPlugin(
    info: { name: string; endpoint: string; supportedVersions: readonly string[] },
    socketPath: string,
  ): void;
  onSocketRemoved(socketPath: string): void;
  prepareClaims(pod: DraPod, claims: readonly DraClaimRef[]): Promise<PreparedClaim[]>;
  deletePod(name: string, namespace: string): Promise<void>;
  state(): DraState;
  health(driver: string): DraDeviceHealth[];
  podSnapshots(): DraPodSnapshot[];
  /** (Re)start: reload the checkpoint, delete the node's slices, sync every checkpointed pod again. */
  start(): void;
  stop(): void;
}

interface ClaimInfo {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly podUids: Set<string>;
  readonly drivers: Map<string, PreparedDevice[]>;
  prepared: boolean;
}

interface PodRecord {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: Array<{ name: string; claims: string[] }>;
  readonly claims: DraClaimRef[];
  retry?: NodeJS.Timeout;
  deleting?: boolean;
}

interface HealthEntry {
  readonly poolName: string;
  readonly deviceName: string;
  readonly health: DraDeviceHealth['health'];
  readonly message: string;
  readonly lastUpdated: number;
  readonly timeoutMs: number;
  timer?: unknown;
}

const claimKey = (namespace: string, name: string): string => `${namespace}/${name}`;
const defaultHealthTimeoutMs = 30_000;
const healthNames: Record<number, DraDeviceHealth['health']> = { 1: 'Healthy', 2: 'Unhealthy' };

/** Creates the DRA manager (not started). */
export function createDraManager(options: DraManagerOptions): DraManager {
  const { emit, clock } = options;
  const drivers = new Map<string, DraEndpoint[]>();
  const bySocket = new Map<string, DraEndpoint>();
  const healthStops = new Map<DraEndpoint, () => void>();
  const health = new Map<string, Map<string, HealthEntry>>();
  const pendingWipes = new Map<string, unknown>();
  let claims = new Map<string, ClaimInfo>();
  let pods = new Map<string, PodRecord>();
  let generation = 0;
  let chain: Promise<unknown> = Promise.resolve();

  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const result = chain.then(work, work);
    chain = result.catch(() => undefined);
    return result;
  };

  const checkpoint = (): void => {
    const claimEntries: DraCheckpointClaim[] = [...claims.values()].map((info) => ({
      ClaimUID: info.uid,
      ClaimName: info.name,
      Namespace: info.namespace,
      PodUIDs: [...info.podUids],
      DriverState: Object.fromEntries(
        [...info.drivers].map(([driver, devices]) => [
          driver,
          {
            Devices: devices.map((d): DraCheckpointDevice => ({
              PoolName: d.poolName,
              DeviceName: d.deviceName,
              RequestNames: [...d.requestNames],
              CDIDeviceIDs: [...d.cdiDeviceIds],
              ...(d.shareId === undefined ? {} : { ShareID: d.shareId }),
            })),
          },
        ]),
      ),
    }));
    const podEntries: DraCheckpointPod[] = [...pods.values()]
      .filter((p) => !p.deleting)
      .map((p) => ({
        name: p.name,
        namespace: p.namespace,
        uid: p.uid,
        containers: p.containers,
        claims: p.claims,
      }));
    try {
      writeDraCheckpoint(options.checkpointPath, { Claims: claimEntries, Pods: podEntries });
    } catch {
      // The directory went away (the simulator is closing): the next change writes it again.
    }
  };

  // --- drivers and slices ---------------------------------------------------------------------------------

  /** The kubelet's GetPlugin: the newest connected endpoint, else the newest. */
  const getPlugin = (driver: string): DraEndpoint => {
    if (driver === '') throw new Error('DRA driver name is empty');
    const endpoints = drivers.get(driver) ?? [];
    const chosen = [...endpoints].reverse().find((e) => e.connected) ?? endpoints[endpoints.length - 1];
    if (chosen === undefined) throw new Error(`DRA driver ${driver} is not registered`);
    return chosen;
  };

  /** Deletes the node's slices (one driver's, or all), retrying with backoff until it works or the kubelet stops. */
  const wipe = (driver: string | undefined, reason: 'kubelet-start' | 'driver-gone'): void => {
    const api = options.api;
    if (api === undefined) return;
    const started = generation;
    let delay = 1000;
    const attempt = async (): Promise<void> => {
      if (started !== generation) return;
      try {
        await api.getNode(options.nodeName);
        const count = await api.deleteSlices(options.nodeName, driver);
        if (started !== generation) return;
        emit('slices-deleted', {
          node: options.nodeName,
          ...(driver === undefined ? {} : { driver }),
          reason,
          count,
        });
      } catch (err) {
        if (err instanceof DraApiError && err.code === 404 && driver !== undefined) return;
        const timer = setTimeout(() => void attempt(), delay);
        timer.unref();
        delay = Math.min(delay * 2, 30_000);
      }
    };
    void attempt();
  };

  /** The kubelet's sync: a driver with no connected endpoint gets its slices deleted after the wipe delay. */
  const syncDriver = (driver: string): void => {
    if (options.api === undefined) return;
    const usable = (drivers.get(driver) ?? []).some((e) => e.connected);
    const pending = pendingWipes.get(driver);
    if (usable) {
      if (pending !== undefined) clock.clearTimeout(pending);
      pendingWipes.delete(driver);
      return;
    }
    if (pending !== undefined) return;
    pendingWipes.set(
      driver,
      clock.setTimeout(() => {
        pendingWipes.delete(driver);
        wipe(driver, 'driver-gone');
      }, options.wipeDelayMs),
    );
  };

  // --- health -----------------------------------------------------------------------------------------------

  const evaluate = (entry: HealthEntry): DraDeviceHealth => ({
    poolName: entry.poolName,
    deviceName: entry.deviceName,
    health: clock.now() - entry.lastUpdated > entry.timeoutMs ? 'Unknown' : entry.health,
    message: entry.message,
    lastUpdated: entry.lastUpdated,
    timeoutMs: entry.timeoutMs,
  });
  const healthOf = (driver: string): DraDeviceHealth[] =>
    [...(health.get(driver)?.values() ?? [])].map(evaluate);

  const clearHealth = (driver: string): void => {
    for (const entry of health.get(driver)?.values() ?? [])
      if (entry.timer !== undefined) clock.clearTimeout(entry.timer);
    health.delete(driver);
  };

  const updateHealth = (driver: string, devices: readonly draHealthV1alpha1.DeviceHealth[]): void => {
    const entries = health.get(driver) ?? new Map<string, HealthEntry>();
    health.set(driver, entries);
    for (const raw of devices) {
      const poolName = raw.device?.poolName ?? '';
      const deviceName = raw.device?.deviceName ?? '';
      const key = `${poolName}/${deviceName}`;
      const previous = entries.get(key);
      if (previous?.timer !== undefined) clock.clearTimeout(previous.timer);
      const entry: HealthEntry = {
        poolName,
        deviceName,
        health: healthNames[raw.health] ?? 'Unknown',
        message: raw.message.length > 1024 ? `${raw.message.slice(0, 1021)}...` : raw.message,
        lastUpdated: raw.lastUpdatedTime > 0 ? raw.lastUpdatedTime * 1000 : clock.now(),
        timeoutMs:
          raw.healthCheckTimeoutSeconds > 0 ? raw.healthCheckTimeoutSeconds * 1000 : defaultHealthTimeoutMs,
      };
      // A device not refreshed within its timeout becomes Unknown.
      entry.timer = clock.setTimeout(
        () => {
          if (health.get(driver)?.get(key) !== entry) return;
          entry.timer = undefined;
          emit('dra-health', { driver, reason: 'timeout', devices: healthOf(driver) });
        },
        Math.max(0, entry.lastUpdated + entry.timeoutMs - clock.now()) + 1,
      );
      entries.set(key, entry);
    }
    emit('dra-health', { driver, reason: 'update', devices: healthOf(driver) });
  };

  const startHealth = (endpoint: DraEndpoint): void => {
    const started = generation;
    const attempt = (): void => {
      if (started !== generation || bySocket.get(endpoint.socketPath) !== endpoint) return;
      const stop = endpoint.watchHealth({
        onMessage: (devices) => updateHealth(endpoint.driver, devices),
        onEnd: () => {
          healthStops.delete(endpoint);
          if (started !== generation || bySocket.get(endpoint.socketPath) !== endpoint) return;
          // The stream ended: the driver's health is cleared, and the stream opened again later.
          clearHealth(endpoint.driver);
          emit('dra-health', { driver: endpoint.driver, reason: 'stream-ended', devices: [] });
          clock.setTimeout(attempt, options.healthRetryMs);
        },
      });
      healthStops.set(endpoint, stop);
    };
    attempt();
  };

  // --- registration -----------------------------------------------------------------------------------------

  const registerPlugin: DraManager['registerPlugin'] = (info, socketPath) => {
    const driver = info.name;
    const endpointPath = info.endpoint === '' ? socketPath : info.endpoint;
    const chosen = chooseDraServices(driver, endpointPath, info.supportedVersions);
    if ('problem' in chosen) throw new Error(chosen.problem);
    const endpoints = drivers.get(driver) ?? [];
    if (endpoints.some((e) => e.endpoint === endpointPath)) {
      // One plugin instance cannot hijack the endpoint of another instance.
      throw new Error(`endpoint ${endpointPath} already registered for DRA driver plugin ${driver}`);
    }
    const endpoint = connectDraEndpoint({
      driver,
      endpoint: endpointPath,
      socketPath,
      service: chosen.service,
      healthService: chosen.healthService,
      onConnectedChange: (connected) => {
        emit('dra-connection', { driver, endpoint: endpointPath, connected });
        syncDriver(driver);
      },
    });
    drivers.set(driver, [...endpoints, endpoint]);
    bySocket.set(socketPath, endpoint);
    emit('dra-registered', {
      driver,
      endpoint: endpointPath,
      service: chosen.service,
      ...(chosen.healthService === undefined ? {} : { healthService: chosen.healthService }),
      socketPath,
    });
    if (chosen.healthService !== undefined) startHealth(endpoint);
    syncDriver(driver);
  };

  const removeEndpoint = (endpoint: DraEndpoint): void => {
    bySocket.delete(endpoint.socketPath);
    healthStops.get(endpoint)?.();
    healthStops.delete(endpoint);
    endpoint.close();
    const rest = (drivers.get(endpoint.driver) ?? []).filter((e) => e !== endpoint);
    if (rest.length === 0) drivers.delete(endpoint.driver);
    else drivers.set(endpoint.driver, rest);
    syncDriver(endpoint.driver);
  };

  // --- prepare and unprepare ----------------------------------------------------------------------------------

  const fetchClaim = async (namespace: string, ref: DraClaimRef): Promise<ResourceClaimObject> => {
    if (typeof ref !== 'string') return ref;
    if (options.api === undefined) {
      throw new Error(
        `fetch ResourceClaim ${ref}: kubelet-sim has no API server (pass dra.apiServer, or the claim object)`,
      );
    }
    try {
      return await options.api.getClaim(namespace, ref);
    } catch (err) {
      throw new Error(`fetch ResourceClaim ${ref}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  };

  const preparedClaim = (info: ClaimInfo): PreparedClaim => ({
    name: info.name,
    namespace: info.namespace,
    uid: info.uid,
    devices: [...info.drivers.values()].flat(),
  });

  /**
   * One call with the kubelet's response rules: a gRPC error, a per-claim error, a result for a claim not
   * asked about, or a claim left out each fail the whole call.
   */
  const callDriver = async <R extends { claims: Record<string, { error: string }> }>(
    rpc: 'NodePrepareResources' | 'NodeUnprepareResources',
    batch: readonly DraClaim[],
    call: () => Promise<R>,
  ): Promise<R> => {
    let response: R;
    try {
      response = await call();
    } catch (err) {
      throw new Error(`${rpc}: ${goErrorString(err)}`, { cause: err });
    }
    for (const [uid, result] of Object.entries(response.claims)) {
      const requested = batch.find((c) => c.uid === uid);
      if (requested === undefined) throw new Error(`${rpc} returned result for unknown claim UID ${uid}`);
      if (result.error !== '')
        throw new Error(`${rpc} failed for ResourceClaim ${requested.name}: ${result.error}`);
    }
    const unfinished = batch.length - Object.keys(response.claims).length;
    if (unfinished !== 0) throw new Error(`${rpc} skipped ${unfinished} ResourceClaims`);
    return response;
  };

  const preparePod = async (pod: PodRecord): Promise<PreparedClaim[]> => {
    // Validation pass, without touching the cache: fetch, ownership, allocation, drivers.
    const resolved: Array<{ claim: ResourceClaimObject; drivers: Map<string, DraEndpoint> }> = [];
    for (const ref of pod.claims) {
      const claim = await fetchClaim(pod.namespace, ref);
      const name = claim.metadata.name;
      const reserved = (claim.status?.reservedFor ?? []).some(
        (r) => r.resource === 'pods' && r.uid === pod.uid,
      );
      if (!reserved)
        throw new Error(
          `pod ${pod.name} (${pod.uid}) is not allowed to use ResourceClaim ${name} (${claim.metadata.uid})`,
        );
      if (claim.status?.allocation === undefined) throw new Error(`ResourceClaim ${name}: not allocated`);
      const endpoints = new Map<string, DraEndpoint>();
      for (const result of claim.status.allocation.devices?.results ?? []) {
        if (!endpoints.has(result.driver)) endpoints.set(result.driver, getPlugin(result.driver));
      }
      resolved.push({ claim, drivers: endpoints });
    }
    // The cache: add the claims and the pod's reference, checkpointed before any call.
    const batches = new Map<DraEndpoint, DraClaim[]>();
    const infos: ClaimInfo[] = [];
    for (const { claim, drivers: endpoints } of resolved) {
      const namespace = claim.metadata.namespace ?? pod.namespace;
      const key = claimKey(namespace, claim.metadata.name);
      let info = claims.get(key);
      if (info === undefined) {
        info = {
          uid: claim.metadata.uid,
          name: claim.metadata.name,
          namespace,
          podUids: new Set(),
          drivers: new Map([...endpoints.keys()].map((d) => [d, []])),
          prepared: false,
        };
        claims.set(key, info);
      } else if (info.uid !== claim.metadata.uid) {
        throw new Error(
          `old ResourceClaim with same name ${info.name} and different UID ${info.uid} still exists (previous pod force-deleted?!)`,
        );
      }
      info.podUids.add(pod.uid);
      infos.push(info);
      checkpoint();
      if (info.prepared) continue;
      for (const endpoint of endpoints.values()) {
        batches.set(endpoint, [
          ...(batches.get(endpoint) ?? []),
          { namespace, uid: info.uid, name: info.name },
        ]);
      }
    }
    // One NodePrepareResources per driver with all its claims; any failure aborts.
    const calls: Array<{ driver: string; claims: string[] }> = [];
    for (const [endpoint, batch] of batches) {
      calls.push({ driver: endpoint.driver, claims: batch.map((c) => c.name) });
      const response = await callDriver('NodePrepareResources', batch, () =>
        endpoint.prepare(batch, options.callTimeoutMs),
      );
      for (const [uid, result] of Object.entries(response.claims)) {
        const requested = batch.find((c) => c.uid === uid);
        if (requested === undefined) continue;
        const info = claims.get(claimKey(requested.namespace, requested.name));
        info?.drivers.set(
          endpoint.driver,
          result.devices.map((d) => ({
            driver: endpoint.driver,
            requestNames: [...d.requestNames],
            poolName: d.poolName,
            deviceName: d.deviceName,
            cdiDeviceIds: [...d.cdiDeviceIds],
            ...(d.shareId === undefined ? {} : { shareId: d.shareId }),
          })),
        );
      }
    }
    const batchedUids = new Set([...batches.values()].flat().map((c) => c.uid));
    for (const info of infos) if (batchedUids.has(info.uid)) info.prepared = true;
    checkpoint();
    const prepared = infos.map(preparedClaim);
    emit('dra-prepared', {
      pod: pod.name,
      namespace: pod.namespace,
      podUid: pod.uid,
      claims: prepared,
      calls,
    });
    return prepared;
  };

  const syncPod = (pod: PodRecord): Promise<PreparedClaim[]> => {
    const started = generation;
    if (pod.retry !== undefined) clearTimeout(pod.retry);
    delete pod.retry;
    return serialized(() => preparePod(pod)).catch((err: unknown) => {
      const message = `prepare dynamic resources: ${err instanceof Error ? err.message : String(err)}`;
      if (started === generation && pods.get(pod.uid) === pod && !pod.deleting) {
        emit('dra-prepare-failed', { pod: pod.name, namespace: pod.namespace, podUid: pod.uid, message });
        // The pod is synced again later: the kubelet retries a failed prepare on the next sync.
        pod.retry = setTimeout(() => void syncPod(pod).catch(() => undefined), options.podSyncRetryMs);
        pod.retry.unref();
      }
      throw new Error(message, { cause: err });
    });
  };

  const unpreparePod = async (pod: PodRecord): Promise<void> => {
    const batches = new Map<string, DraClaim[]>();
    const last: ClaimInfo[] = [];
    for (const info of claims.values()) {
      if (!info.podUids.has(pod.uid)) continue;
      // Other pods still use it: only the reference goes.
      if (info.podUids.size > 1) {
        info.podUids.delete(pod.uid);
        continue;
      }
      last.push(info);
      for (const driver of info.drivers.keys()) {
        batches.set(driver, [
          ...(batches.get(driver) ?? []),
          { namespace: info.namespace, uid: info.uid, name: info.name },
        ]);
      }
    }
    for (const [driver, batch] of batches) {
      const endpoint = getPlugin(driver);
      await callDriver('NodeUnprepareResources', batch, () =>
        endpoint.unprepare(batch, options.callTimeoutMs),
      );
    }
    for (const info of last) claims.delete(claimKey(info.namespace, info.name));
    if (pods.get(pod.uid) === pod) pods.delete(pod.uid);
    checkpoint();
    emit('dra-unprepared', {
      pod: pod.name,
      namespace: pod.namespace,
      podUid: pod.uid,
      claims: last.map((i) => ({ name: i.name, namespace: i.namespace, uid: i.uid })),
    });
  };

  const deletePodRecord = (pod: PodRecord): Promise<void> => {
    const started = generation;
    pod.deleting = true;
    if (pod.retry !== undefined) clearTimeout(pod.retry);
    delete pod.retry;
    return serialized(() => unpreparePod(pod)).catch((err: unknown) => {
      if (started === generation && pods.get(pod.uid) === pod) {
        // Cleanup is retried until it works, as the kubelet's housekeeping does.
        pod.retry = setTimeout(
          () => void deletePodRecord(pod).catch(() => undefined),
          options.podSyncRetryMs,
        );
        pod.retry.unref();
      }
      throw new Error(`unprepare dynamic resources: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    });
  };

  // --- pod-resources ------------------------------------------------------------------------------------------

  const dynamicResources = (
    pod: PodRecord,
    claimNames: readonly string[],
  ): podresources.DynamicResource[] => {
    const out: podresources.DynamicResource[] = [];
    for (const name of claimNames) {
      const info = claims.get(claimKey(pod.namespace, name));
      // The kubelet reports nothing for a container whose claim info it cannot find.
      if (info === undefined) return [];
      const claimResources: podresources.ClaimResource[] = [];
      for (const [driver, devices] of info.drivers) {
        // As the kubelet builds it: the CDI list accumulates over a driver's devices (each entry holds the
        // IDs of the devices before it too).
        const cdiDevices: podresources.CDIDevice[] = [];
        for (const device of devices) {
          for (const id of device.cdiDeviceIds) cdiDevices.push({ name: id });
          claimResources.push({
            cdiDevices: [...cdiDevices],
            driverName: driver,
            poolName: device.poolName,
            deviceName: device.deviceName,
            ...(device.shareId === undefined ? {} : { shareId: device.shareId }),
          });
        }
      }
      out.push({ claimName: info.name, claimNamespace: info.namespace, claimResources });
    }
    return out;
  };

  const stopAll = (): void => {
    generation += 1;
    for (const endpoint of bySocket.values()) {
      healthStops.get(endpoint)?.();
      endpoint.close();
    }
    healthStops.clear();
    bySocket.clear();
    drivers.clear();
    for (const driver of [...health.keys()]) clearHealth(driver);
    for (const timer of pendingWipes.values()) clock.clearTimeout(timer);
    pendingWipes.clear();
    for (const pod of pods.values()) if (pod.retry !== undefined) clearTimeout(pod.retry);
    claims = new Map();
    pods = new Map();
  };

  return {
    registerPlugin,
    onSocketRemoved: (socketPath) => {
      const endpoint = bySocket.get(socketPath);
      if (endpoint !== undefined) removeEndpoint(endpoint);
    },
    prepareClaims: (pod, refs) => {
      const namespace = pod.namespace ?? 'default';
      const claimNames = refs.map((r) => (typeof r === 'string' ? r : r.metadata.name));
      const record: PodRecord = {
        name: pod.name,
        namespace,
        uid: pod.uid,
        containers: (pod.containers ?? [{ name: 'main', claims: claimNames }]).map((c) => ({
          name: c.name,
          claims: [...c.claims],
        })),
        claims: [...refs],
      };
      const previous = pods.get(pod.uid);
      if (previous?.retry !== undefined) clearTimeout(previous.retry);
      pods.set(pod.uid, record);
      checkpoint();
      return syncPod(record);
    },
    deletePod: (name, namespace) => {
      const pod = [...pods.values()].find((p) => p.name === name && p.namespace === namespace);
      if (pod === undefined) return Promise.reject(new Error(`kubelet-sim: no DRA pod ${namespace}/${name}`));
      return deletePodRecord(pod);
    },
    state: () => ({
      drivers: [...drivers].map(([driver, endpoints]) => ({
        driver,
        endpoints: endpoints.map((e) => ({
          endpoint: e.endpoint,
          service: e.service,
          ...(e.healthService === undefined ? {} : { healthService: e.healthService }),
          connected: e.connected,
        })),
      })),
      claims: [...claims.values()].map((info) => ({
        name: info.name,
        namespace: info.namespace,
        uid: info.uid,
        podUids: [...info.podUids],
        prepared: info.prepared,
        devices: [...info.drivers.values()].flat(),
      })),
    }),
    health: healthOf,
    podSnapshots: () =>
      [...pods.values()]
        .filter((p) => !p.deleting)
        .map((p) => ({
          name: p.name,
          namespace: p.namespace,
          containers: p.containers.map((c) => ({
            name: c.name,
            dynamicResources: dynamicResources(p, c.claims),
          })),
        })),
    start: () => {
      stopAll();
      const data = readDraCheckpoint(options.checkpointPath);
      for (const entry of data?.Claims ?? []) {
        // Claims come back from the checkpoint not prepared: every pod's prepare is called again on its sync.
        claims.set(claimKey(entry.Namespace, entry.ClaimName), {
          uid: entry.ClaimUID,
          name: entry.ClaimName,
          namespace: entry.Namespace,
          podUids: new Set(entry.PodUIDs),
          drivers: new Map(
            Object.entries(entry.DriverState).map(([driver, state]) => [
              driver,
              state.Devices.map((d) => ({
                driver,
                requestNames: d.RequestNames,
                poolName: d.PoolName,
                deviceName: d.DeviceName,
                cdiDeviceIds: d.CDIDeviceIDs,
                ...(d.ShareID === undefined ? {} : { shareId: d.ShareID }),
              })),
            ]),
          ),
          prepared: false,
        });
      }
      for (const entry of data?.Pods ?? []) {
        pods.set(entry.uid, { ...entry, claims: entry.claims as DraClaimRef[] });
      }
      // At start the kubelet deletes every ResourceSlice of its node: drivers must publish again.
      wipe(undefined, 'kubelet-start');
      for (const pod of pods.values()) void syncPod(pod).catch(() => undefined);
    },
    stop: stopAll,
  };
}
