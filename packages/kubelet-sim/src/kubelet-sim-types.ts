import type { EventEmitter } from 'node:events';
import type { ContainerAllocateResponse, Device, DevicePluginOptions } from '@kdp/api';
import type { Clock } from '@kdp/base';
import type { DraApiServerConnection } from './dra/dra-api-client';
import type { DraDeviceHealth, PreparedClaim } from './dra/dra-events';
import type { DraClaimRef, DraPod, DraState } from './dra/dra-manager';
import type { RateLimit } from './rate-limiter';
import type { PluginApiVersion, SimEventOf, SimEventType } from './sim-events';

/** Options of `createKubeletSim`. */
export interface KubeletSimOptions {
  /** The device-plugin directory; created with mode 0750 (P-1); `kubelet.sock` is served in it. */
  readonly dir: string;
  /** Time source for grace periods, stop times and the pod-resources rate limit. */
  readonly clock?: Clock;
  /** How long a resource whose stream ended is kept (P-19); default 5 minutes. */
  readonly gracePeriodMs?: number;
  /** When set, PodResourcesLister v1 is served on this socket (P-35). */
  readonly podResourcesSocket?: string;
  /** Pod-resources rate limit; default 100 QPS, burst 10 (P-35). */
  readonly podResourcesRateLimit?: RateLimit;
  /** When set, plugin-watcher mode: sockets appearing in this directory are registered (P-36). */
  readonly pluginsRegistryDir?: string;
  /**
   * Register APIs served on kubelet.sock. Default `['v1beta1']`, as a current kubelet (a v1alpha Register gets
   * UNIMPLEMENTED); add `'v1alpha2'` to accept the old `deviceplugin.Registration/Register` too.
   */
  readonly acceptedApis?: readonly PluginApiVersion[];
  /** How long Register waits for the plugin's socket (blocking dial, P-11); default 10 s. */
  readonly dialTimeoutMs?: number;
  /** PreStartContainer deadline (P-29); default 30 s. */
  readonly preStartTimeoutMs?: number;
  /** When set, the kubelet's DRA manager runs too (see {@link DraOptions}). */
  readonly dra?: DraOptions;
}

/** Options of the simulated kubelet's DRA manager. */
export interface DraOptions {
  /**
   * The plugin-watcher directory DRA drivers register in; default the device-plugin side's
   * `pluginsRegistryDir`, one of the two must be set.
   */
  readonly pluginsRegistryDir?: string;
  /** The API server: claims are read from it, the node's ResourceSlices deleted in it. */
  readonly apiServer?: DraApiServerConnection;
  /** This node's name (slices are deleted by `spec.nodeName`); default `kubelet-sim-node`. */
  readonly nodeName?: string;
  /** Where `dra_manager_state` is written; default `dir`. */
  readonly stateDir?: string;
  /** NodePrepareResources / NodeUnprepareResources deadline; default 45 s. */
  readonly callTimeoutMs?: number;
  /** A driver with no connected endpoint this long gets its slices deleted; default 30 s (on `clock`). */
  readonly wipeDelayMs?: number;
  /** Pause before NodeWatchResources is reopened after it ended; default 5 s (on `clock`). */
  readonly healthRetryMs?: number;
  /** Pause before a failed prepare or unprepare is tried again (the next pod sync); default 1 s, real time. */
  readonly podSyncRetryMs?: number;
  /** A pod failing again and again waits twice as long each time, up to this; default `podSyncRetryMs` (fixed). */
  readonly podSyncMaxRetryMs?: number;
  /**
   * The UIDs of the pods the kubelet runs (its pod manager's active pods), or undefined while it does not know them
   * yet. With it the DRA manager reconciles as the kubelet's does: at start and every `reconcilePeriodMs`, the
   * claims of pods no longer active are unprepared (a pod deleted while the kubelet was down).
   */
  readonly activePods?: () => ReadonlySet<string> | undefined;
  /** Pause between two reconciliations; default 60 s, the kubelet's (real time). */
  readonly reconcilePeriodMs?: number;
}

/** What the simulated kubelet knows about one resource. */
export interface ResourceState {
  readonly name: string;
  /** The endpoint as registered: a file name in `dir`, or a full path (plugin-watcher mode). */
  readonly endpoint: string;
  /** False once its stream ended (and after a restart, until the plugin registers again). */
  readonly registered: boolean;
  readonly apiVersion: PluginApiVersion;
  /** From GetDevicePluginOptions, which the kubelet uses instead of RegisterRequest.options (P-10). */
  readonly options: DevicePluginOptions;
  /** The last list, duplicates removed (the last one wins, P-14). */
  readonly devices: Device[];
  readonly healthy: string[];
  readonly unhealthy: string[];
  /** Healthy plus unhealthy (P-16). */
  readonly capacity: number;
  /** Healthy only (P-16). */
  readonly allocatable: number;
  /** When the stream ended, on the injected clock (P-19). */
  readonly stoppedAt?: number;
}

/** A container's request for devices of one resource, as pod admission sees it. */
export interface AdmitRequest {
  readonly pod: string;
  readonly namespace?: string;
  readonly container: string;
  readonly resource: string;
  readonly count: number;
  /** Topology-manager NUMA affinity; devices on these nodes are chosen first (P-34). */
  readonly affinity?: readonly number[];
}

/** The outcome of a successful admission. */
export interface Admission {
  readonly deviceIds: string[];
  /** `container_responses[0]` of the Allocate reply (P-27). */
  readonly response: ContainerAllocateResponse;
}

/** An RPC that {@link KubeletSim.stallNext} can delay. */
export type StallableRpc =
  'getDevicePluginOptions' | 'listAndWatch' | 'getPreferredAllocation' | 'allocate' | 'preStartContainer';

/** Options of {@link KubeletSim.restart}. */
export interface RestartOptions {
  /** Resolve only once every resource registered before the restart has registered again. */
  readonly waitForPlugins?: boolean;
  /** Upper bound for `waitForPlugins`; default 10 s. */
  readonly timeoutMs?: number;
}

/** A simulated kubelet device manager. */
export interface KubeletSim {
  readonly dir: string;
  /** Every event, by type, each with `type` and `at`; also every event under the name `event`. */
  readonly events: EventEmitter;
  resource(name: string): ResourceState | undefined;
  resources(): ResourceState[];
  admit(request: AdmitRequest): Promise<Admission>;
  release(pod: string, namespace?: string): void;
  startContainer(pod: string, container: string, namespace?: string): Promise<void>;
  restart(options?: RestartOptions): Promise<void>;
  dropStream(resource: string): void;
  stallNext(rpc: StallableRpc, ms: number): void;
  deletePluginSocket(resource: string): Promise<void>;
  refuseNextRegister(message?: string): void;
  waitFor<T extends SimEventType>(
    type: T,
    predicate?: (event: SimEventOf<T>) => boolean,
    timeoutMs?: number,
  ): Promise<SimEventOf<T>>;
  /**
   * Resolves with the resource's state once it is registered and `predicate` holds, now or after any later
   * event; rejects after `timeoutMs` (default 30 s) with the state it last saw.
   */
  until(
    resource: string,
    predicate: (state: ResourceState) => boolean,
    timeoutMs?: number,
  ): Promise<ResourceState>;
  /**
   * DRA: the pod is synced: its claims are read (names from the API server, or objects as given), checked
   * (reserved for the pod, allocated, drivers registered) and prepared, one NodePrepareResources per driver.
   * Rejects with the kubelet's message; a failed pod is synced again every `podSyncRetryMs` until deleted.
   */
  prepareClaims(pod: DraPod, claims: readonly DraClaimRef[]): Promise<PreparedClaim[]>;
  /** DRA: the pod ended: NodeUnprepareResources for the claims no other pod uses (retried until it works). */
  deletePod(pod: string, namespace?: string): Promise<void>;
  /** DRA: drivers with their endpoints, and claims with their pods and devices. */
  draState(): DraState;
  /** DRA: the health the kubelet holds for a driver's devices (`Unknown` past their timeout). */
  draHealth(driver: string): DraDeviceHealth[];
  close(): Promise<void>;
}
