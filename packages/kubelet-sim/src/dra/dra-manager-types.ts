import type { podresources } from '@kdp/api';
import type { Clock } from '@kdp/base';
import type { DraApiClient, ResourceClaimObject } from './dra-api-client';
import type { DraDeviceHealth, DraEvent, PreparedClaim, PreparedDevice } from './dra-events';

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

/** How the DRA manager emits its events. */
export type DraEmit = <T extends DraEvent['type']>(
  type: T,
  payload: Omit<Extract<DraEvent, { type: T }>, 'type' | 'at'>,
) => void;

/** Options of {@link createDraManager}. */
export interface DraManagerOptions {
  readonly emit: DraEmit;
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
  /** The pause doubles per failure in a row up to this; default `podSyncRetryMs` (a fixed pause). */
  readonly podSyncMaxRetryMs?: number;
  /** The UIDs of the kubelet's active pods, undefined while not known; without it nothing is reconciled. */
  readonly activePods?: (() => ReadonlySet<string> | undefined) | undefined;
  /** Pause between two reconciliations (real time); the kubelet's is 60 s. */
  readonly reconcilePeriodMs?: number | undefined;
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
  /**
   * (Re)start: reload the checkpoint, delete the node's slices, sync every checkpointed pod again (unprepare those
   * no longer active, with `activePods`).
   */
  start(): void;
  /** Unprepares the claims of every pod that is no longer active (nothing without `activePods`, or while unknown). */
  reconcile(): void;
  stop(): void;
}
